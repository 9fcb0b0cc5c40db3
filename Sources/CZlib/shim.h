/* zlib, for the compressed image data and checksums of PNG snapshots. */
#include <zlib.h>
