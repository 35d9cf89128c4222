// Swift has no way to take a string from the build command line; C's -D does. Plain `swift build` leaves both empty.
#include "CBuildInfo.h"

#ifndef TROVE_GIT_COMMIT
#define TROVE_GIT_COMMIT ""
#endif
#ifndef TROVE_BUILD_DATE
#define TROVE_BUILD_DATE ""
#endif

const char *trove_git_commit(void) { return TROVE_GIT_COMMIT; }
const char *trove_build_date(void) { return TROVE_BUILD_DATE; }
