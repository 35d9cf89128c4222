// libxml2's HTML parser (Debian's libxml2-dev, MIT): the tolerant tag-soup reader behind HTMLExtractor.
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, so encoding.h would include the system's <unicode/ucnv.h>, whose enums clash with
// the copy of ICU inside Foundation (_FoundationICU). Only xmlCharEncodingHandler's two converter pointers depend on
// it, a struct Trove never touches (the tree types it reads hold no such struct by value).
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
