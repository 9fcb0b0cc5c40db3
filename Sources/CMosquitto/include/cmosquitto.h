/* libmosquitto (Eclipse Mosquitto's MQTT client), for the carer's window over MQTT, loaded
   with dlopen when `mqtt` is configured: a box without MQTT, the feed reader and each
   `marquee status` never load it (nor the TLS libraries it needs). The functions keep
   libmosquitto's names and arguments, prefixed mq_. */
#include <mosquitto.h>
#include <stdbool.h>

/* Loads and starts libmosquitto once: NULL when it is ready, else why it is not. Call it first. */
const char *mq_mosquitto_load(void);

struct mosquitto *mq_mosquitto_new(const char *id, bool clean_session, void *context);
void mq_mosquitto_destroy(struct mosquitto *client);
int mq_mosquitto_username_pw_set(struct mosquitto *client, const char *username, const char *password);
int mq_mosquitto_will_set(struct mosquitto *client, const char *topic, int length, const void *payload, int qos,
                          bool retain);
int mq_mosquitto_tls_set(struct mosquitto *client, const char *ca_file, const char *ca_path);
int mq_mosquitto_int_option(struct mosquitto *client, enum mosq_opt_t option, int value);
int mq_mosquitto_threaded_set(struct mosquitto *client, bool threaded);
int mq_mosquitto_connect(struct mosquitto *client, const char *host, int port, int keepalive);
int mq_mosquitto_disconnect(struct mosquitto *client);
int mq_mosquitto_loop(struct mosquitto *client, int timeout_ms, int max_packets);
int mq_mosquitto_publish(struct mosquitto *client, const char *topic, int length, const void *payload, int qos,
                         bool retain);
int mq_mosquitto_subscribe(struct mosquitto *client, const char *pattern, int qos);
void mq_mosquitto_connect_callback_set(struct mosquitto *client, void (*on_connect)(struct mosquitto *, void *, int));
void mq_mosquitto_disconnect_callback_set(struct mosquitto *client,
                                          void (*on_disconnect)(struct mosquitto *, void *, int));
void mq_mosquitto_message_callback_set(struct mosquitto *client,
                                       void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));
const char *mq_mosquitto_strerror(int code);
const char *mq_mosquitto_connack_string(int code);
int mq_mosquitto_pub_topic_check(const char *topic);
