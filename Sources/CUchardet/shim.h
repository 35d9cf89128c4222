// uchardet (Debian's libuchardet-dev, MPL-1.1/GPL-2+/LGPL-2.1+): the charset detector, Mozilla's universal detector
// as a C library, for text files that are not valid UTF-8.
#include <uchardet.h>
