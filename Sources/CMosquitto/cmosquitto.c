#include "cmosquitto.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    int (*lib_init)(void);
    struct mosquitto *(*new_client)(const char *, bool, void *);
    void (*destroy)(struct mosquitto *);
    int (*username_pw_set)(struct mosquitto *, const char *, const char *);
    int (*will_set)(struct mosquitto *, const char *, int, const void *, int, bool);
    int (*tls_set)(struct mosquitto *, const char *, const char *, const char *, const char *,
                   int (*)(char *, int, int, void *));
    int (*int_option)(struct mosquitto *, enum mosq_opt_t, int);
    int (*threaded_set)(struct mosquitto *, bool);
    int (*connect)(struct mosquitto *, const char *, int, int);
    int (*disconnect)(struct mosquitto *);
    int (*loop)(struct mosquitto *, int, int);
    int (*publish)(struct mosquitto *, int *, const char *, int, const void *, int, bool);
    int (*subscribe)(struct mosquitto *, int *, const char *, int);
    void (*connect_callback_set)(struct mosquitto *, void (*)(struct mosquitto *, void *, int));
    void (*disconnect_callback_set)(struct mosquitto *, void (*)(struct mosquitto *, void *, int));
    void (*message_callback_set)(struct mosquitto *, void (*)(struct mosquitto *, void *, const struct mosquitto_message *));
    const char *(*strerror)(int);
    const char *(*connack_string)(int);
    int (*pub_topic_check)(const char *);
} mosq;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
static char problem[512];
static const char *problem_text = NULL;

static void load(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(problem, sizeof problem, "libmosquitto cannot be loaded (%s); install libmosquitto1", dlerror());
        problem_text = problem;
        return;
    }
#define FIND(field, symbol)                                                                                  \
    if ((*(void **)&mosq.field = dlsym(library, symbol)) == NULL) {                                          \
        snprintf(problem, sizeof problem, "libmosquitto.so.1 lacks %s (marquee needs libmosquitto 2.0)", symbol); \
        problem_text = problem;                                                                              \
        return;                                                                                              \
    }
    FIND(lib_init, "mosquitto_lib_init")
    FIND(new_client, "mosquitto_new")
    FIND(destroy, "mosquitto_destroy")
    FIND(username_pw_set, "mosquitto_username_pw_set")
    FIND(will_set, "mosquitto_will_set")
    FIND(tls_set, "mosquitto_tls_set")
    FIND(int_option, "mosquitto_int_option")
    FIND(threaded_set, "mosquitto_threaded_set")
    FIND(connect, "mosquitto_connect")
    FIND(disconnect, "mosquitto_disconnect")
    FIND(loop, "mosquitto_loop")
    FIND(publish, "mosquitto_publish")
    FIND(subscribe, "mosquitto_subscribe")
    FIND(connect_callback_set, "mosquitto_connect_callback_set")
    FIND(disconnect_callback_set, "mosquitto_disconnect_callback_set")
    FIND(message_callback_set, "mosquitto_message_callback_set")
    FIND(strerror, "mosquitto_strerror")
    FIND(connack_string, "mosquitto_connack_string")
    FIND(pub_topic_check, "mosquitto_pub_topic_check")
#undef FIND
    if (mosq.lib_init() != MOSQ_ERR_SUCCESS) {
        snprintf(problem, sizeof problem, "libmosquitto cannot start");
        problem_text = problem;
    }
}

const char *mq_mosquitto_load(void) {
    pthread_once(&loaded, load);
    return problem_text;
}

struct mosquitto *mq_mosquitto_new(const char *id, bool clean_session, void *context) {
    return mosq.new_client(id, clean_session, context);
}
void mq_mosquitto_destroy(struct mosquitto *client) { mosq.destroy(client); }
int mq_mosquitto_username_pw_set(struct mosquitto *client, const char *username, const char *password) {
    return mosq.username_pw_set(client, username, password);
}
int mq_mosquitto_will_set(struct mosquitto *client, const char *topic, int length, const void *payload, int qos,
                          bool retain) {
    return mosq.will_set(client, topic, length, payload, qos, retain);
}
int mq_mosquitto_tls_set(struct mosquitto *client, const char *ca_file, const char *ca_path) {
    return mosq.tls_set(client, ca_file, ca_path, NULL, NULL, NULL);
}
int mq_mosquitto_int_option(struct mosquitto *client, enum mosq_opt_t option, int value) {
    return mosq.int_option(client, option, value);
}
int mq_mosquitto_threaded_set(struct mosquitto *client, bool threaded) { return mosq.threaded_set(client, threaded); }
int mq_mosquitto_connect(struct mosquitto *client, const char *host, int port, int keepalive) {
    return mosq.connect(client, host, port, keepalive);
}
int mq_mosquitto_disconnect(struct mosquitto *client) { return mosq.disconnect(client); }
int mq_mosquitto_loop(struct mosquitto *client, int timeout_ms, int max_packets) {
    return mosq.loop(client, timeout_ms, max_packets);
}
int mq_mosquitto_publish(struct mosquitto *client, const char *topic, int length, const void *payload, int qos,
                         bool retain) {
    return mosq.publish(client, NULL, topic, length, payload, qos, retain);
}
int mq_mosquitto_subscribe(struct mosquitto *client, const char *pattern, int qos) {
    return mosq.subscribe(client, NULL, pattern, qos);
}
void mq_mosquitto_connect_callback_set(struct mosquitto *client, void (*on_connect)(struct mosquitto *, void *, int)) {
    mosq.connect_callback_set(client, on_connect);
}
void mq_mosquitto_disconnect_callback_set(struct mosquitto *client,
                                          void (*on_disconnect)(struct mosquitto *, void *, int)) {
    mosq.disconnect_callback_set(client, on_disconnect);
}
void mq_mosquitto_message_callback_set(struct mosquitto *client,
                                       void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *)) {
    mosq.message_callback_set(client, on_message);
}
const char *mq_mosquitto_strerror(int code) { return mosq.strerror(code); }
const char *mq_mosquitto_connack_string(int code) { return mosq.connack_string(code); }
int mq_mosquitto_pub_topic_check(const char *topic) { return mosq.pub_topic_check(topic); }
