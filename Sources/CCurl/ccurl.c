#include "ccurl.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLHcode (*easy_header)(CURL *, const char *, size_t, unsigned int, int, struct curl_header **);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
} curl;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char problem[512];
static const char *problem_text = NULL;

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(problem, sizeof problem, "libcurl cannot be loaded (%s)", dlerror());
        problem_text = problem;
        return;
    }
#define FIND(field, symbol)                                                                                       \
    if ((*(void **)&curl.field = dlsym(library, symbol)) == NULL) {                                               \
        snprintf(problem, sizeof problem, "libcurl.so.4 lacks %s (marquee needs libcurl 7.84 or later)", symbol); \
        problem_text = problem;                                                                                   \
        return;                                                                                                   \
    }
    FIND(global_init, "curl_global_init")
    FIND(easy_init, "curl_easy_init")
    FIND(easy_cleanup, "curl_easy_cleanup")
    FIND(easy_perform, "curl_easy_perform")
    FIND(easy_strerror, "curl_easy_strerror")
    FIND(easy_header, "curl_easy_header")
    FIND(slist_append, "curl_slist_append")
    FIND(slist_free_all, "curl_slist_free_all")
    FIND(easy_setopt, "curl_easy_setopt")
    FIND(easy_getinfo, "curl_easy_getinfo")
#undef FIND
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(problem, sizeof problem, "libcurl cannot start");
        problem_text = problem;
    }
}

const char *mq_curl_load(void) {
    pthread_once(&loaded, load);
    return problem_text;
}

CURL *mq_curl_easy_init(void) { return curl.easy_init(); }
void mq_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
CURLcode mq_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *mq_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }

CURLHcode mq_curl_easy_header(CURL *handle, const char *name, size_t index, unsigned int origin, int request,
                              struct curl_header **found) {
    return curl.easy_header(handle, name, index, origin, request, found);
}

struct curl_slist *mq_curl_slist_append(struct curl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}

void mq_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

CURLcode mq_curl_set_long(CURL *handle, CURLoption option, long value) { return curl.easy_setopt(handle, option, value); }

CURLcode mq_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode mq_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode mq_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}

CURLcode mq_curl_set_write(CURL *handle, CURLoption option, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl.easy_setopt(handle, option, callback);
}

CURLcode mq_curl_get_long(CURL *handle, CURLINFO info, long *value) { return curl.easy_getinfo(handle, info, value); }

CURLcode mq_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl.easy_getinfo(handle, info, value);
}
