/* GNU FriBidi: the Unicode Bidirectional Algorithm's embedding levels. */
#include <fribidi.h>
