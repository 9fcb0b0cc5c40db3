/* Makes libical hang on a calendar that holds the line X-TEST-HANG, as a libical bug would:
 * preloaded (LD_PRELOAD) into `marquee read-feed` by the feed reader's tests and by
 * Benchmarks/hung-calendar-benchmark. With MARQUEE_TEST_RELEASE naming a file, the parse
 * waits until that file exists and then goes on as usual (a test decides when), and says it
 * waits by making that file's name with ".waiting" added; without it, it spins on the
 * processor until the reader is stopped. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *(*parse_function)(const char *);

void *icalparser_parse_string(const char *text) {
    if (text != NULL && strstr(text, "X-TEST-HANG") != NULL) {
        const char *release = getenv("MARQUEE_TEST_RELEASE");
        if (release == NULL) {
            volatile unsigned long turns = 0;
            for (;;) turns++;
        }
        if (access(release, F_OK) != 0) {
            char waiting[4096];
            snprintf(waiting, sizeof waiting, "%s.waiting", release);
            FILE *mark = fopen(waiting, "w");
            if (mark != NULL) fclose(mark);
        }
        while (access(release, F_OK) != 0) usleep(10000);
    }
    parse_function parse = (parse_function)dlsym(RTLD_NEXT, "icalparser_parse_string");
    return parse(text);
}
