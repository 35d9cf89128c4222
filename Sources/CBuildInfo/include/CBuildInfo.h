#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/// The git commit the binary was built from, as Scripts/install.sh passes it (-Xcc -DTROVE_GIT_COMMIT="…"), or "".
const char *trove_git_commit(void);
/// The build date (UTC, YYYY-MM-DD), as Scripts/install.sh passes it (-Xcc -DTROVE_BUILD_DATE="…"), or "".
const char *trove_build_date(void);

#endif
