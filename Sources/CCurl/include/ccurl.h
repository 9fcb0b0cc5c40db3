/* libcurl, for calendar subscriptions, loaded with dlopen when the first calendar is fetched.
   Linked in, libcurl and the thirty libraries it needs (TLS, Kerberos, LDAP, SSH…) would be
   loaded by every marquee process for nothing: the feed reader started for each file read, a
   daemon without subscriptions, each `marquee status`. That took 3 ms of each start.
   curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: the set and get
   functions fix one argument type each. */
#include <curl/curl.h>

/* Loads and starts libcurl once: NULL when it is ready, else why it is not. Call it first. */
const char *mq_curl_load(void);

CURL *mq_curl_easy_init(void);
void mq_curl_easy_cleanup(CURL *handle);
CURLcode mq_curl_easy_perform(CURL *handle);
const char *mq_curl_easy_strerror(CURLcode code);
CURLHcode mq_curl_easy_header(CURL *handle, const char *name, size_t index, unsigned int origin, int request,
                              struct curl_header **found);
struct curl_slist *mq_curl_slist_append(struct curl_slist *list, const char *text);
void mq_curl_slist_free_all(struct curl_slist *list);

CURLcode mq_curl_set_long(CURL *handle, CURLoption option, long value);
CURLcode mq_curl_set_string(CURL *handle, CURLoption option, const char *value);
CURLcode mq_curl_set_pointer(CURL *handle, CURLoption option, void *value);
CURLcode mq_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode mq_curl_set_write(CURL *handle, CURLoption option, size_t (*callback)(char *, size_t, size_t, void *));
CURLcode mq_curl_get_long(CURL *handle, CURLINFO info, long *value);
CURLcode mq_curl_get_offset(CURL *handle, CURLINFO info, curl_off_t *value);
