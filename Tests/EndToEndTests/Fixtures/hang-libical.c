/* Makes the feed reader misbehave on a calendar that holds one of these lines, as a libical
 * bug or a sick machine would: preloaded (LD_PRELOAD) into `marquee read-feed` by the feed
 * reader's tests and by Benchmarks/hung-calendar-benchmark.
 *   X-TEST-HANG:/some/file  the parse waits (asleep) until that file exists, saying so by
 *                 making its name with ".waiting" added (holding the reader's pid); without a
 *                 file, for ever
 *   X-TEST-SPIN   the parse computes for ever
 *   X-TEST-COMPUTE:N  the parse computes for N ms of processor time first (a slow file)
 *   X-TEST-CRASH  the parse crashes (SIGSEGV)
 *   X-TEST-GARBLE the reader writes garbage where its answer goes and ends
 *   X-TEST-READ-HANG  the reader's read() that returns those bytes blocks for ever (the
 *                 request is stuck on its way in, before libical sees anything)
 * Only in a process whose command line has the argument "read-feed": preloaded for a whole
 * system (/etc/ld.so.preload, in a mount namespace of the test's own) it leaves the rest be. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void *(*parse_function)(const char *);
typedef ssize_t (*read_function)(int, void *, size_t);

static void sleep_for_ever(void) {
    for (;;) pause();
}

/* 1 in marquee's feed reader, 0 elsewhere. */
static int is_feed_reader(void) {
    static int known = -1;
    if (known >= 0) return known;
    known = 0;
    FILE *file = fopen("/proc/self/cmdline", "r");
    if (file == NULL) return known;
    char line[4096];
    size_t length = fread(line, 1, sizeof line, file);
    fclose(file);
    for (size_t at = 0; at < length; at += strlen(line + at) + 1) {
        if (strncmp(line + at, "read-feed", length - at) == 0) known = 1;
    }
    return known;
}

void *icalparser_parse_string(const char *text) {
    if (!is_feed_reader()) {
        parse_function parse = (parse_function)dlsym(RTLD_NEXT, "icalparser_parse_string");
        return parse(text);
    }
    if (text != NULL && strstr(text, "X-TEST-SPIN") != NULL) {
        volatile unsigned long turns = 0;
        for (;;) turns++;
    }
    const char *compute = text == NULL ? NULL : strstr(text, "X-TEST-COMPUTE:");
    if (compute != NULL) {
        double seconds = strtol(compute + 15, NULL, 10) / 1000.0, used = 0;
        while (used < seconds) {
            struct timespec now;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
            used = now.tv_sec + now.tv_nsec / 1e9;
        }
    }
    if (text != NULL && strstr(text, "X-TEST-CRASH") != NULL) raise(SIGSEGV);
    if (text != NULL && strstr(text, "X-TEST-GARBLE") != NULL) {
        static const char garbage[] = "garbage, not an answer\n";
        write(1, garbage, sizeof garbage - 1);
        _exit(0);
    }
    const char *hang = text == NULL ? NULL : strstr(text, "X-TEST-HANG:");
    if (hang != NULL) {
        char release[4096];
        size_t length = strcspn(hang + 12, "\r\n");
        if (hang[12] != '/' || length >= sizeof release) sleep_for_ever();
        memcpy(release, hang + 12, length);
        release[length] = 0;
        if (access(release, F_OK) != 0) {
            char waiting[4200];
            snprintf(waiting, sizeof waiting, "%s.waiting", release);
            FILE *mark = fopen(waiting, "w");
            if (mark != NULL) {
                fprintf(mark, "%d\n", (int)getpid());
                fclose(mark);
            }
        }
        while (access(release, F_OK) != 0) usleep(10000);
    }
    parse_function parse = (parse_function)dlsym(RTLD_NEXT, "icalparser_parse_string");
    return parse(text);
}

ssize_t read(int fd, void *buffer, size_t count) {
    read_function real = (read_function)dlsym(RTLD_NEXT, "read");
    ssize_t got = real(fd, buffer, count);
    if (got > 0 && is_feed_reader() && memmem(buffer, (size_t)got, "X-TEST-READ-HANG", 16) != NULL) sleep_for_ever();
    return got;
}
