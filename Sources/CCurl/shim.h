/* libcurl, for calendar subscriptions. curl_easy_setopt and curl_easy_getinfo are variadic,
   which Swift cannot call: these wrappers fix one argument type each. */
#include <curl/curl.h>

static inline CURLcode mq_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mq_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mq_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mq_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode mq_curl_set_write(CURL *handle, CURLoption option,
                                         size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode mq_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode mq_curl_get_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode mq_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
