#include "CALSA.h"

/* The handler ALSA calls for each of its own complaints (variadic, so written in C). */
static void say_nothing(const char *file, int line, const char *function, int error, const char *format, ...) {
    (void)file; (void)line; (void)function; (void)error; (void)format;
}

void mq_alsa_keep_quiet(void) {
    snd_lib_error_set_handler(say_nothing);
}
