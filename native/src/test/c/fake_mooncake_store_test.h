/* Shared by the fake's own tests (fake_mooncake_store_test*.c): the fake's functions, resolved. */
#ifndef FAKE_MOONCAKE_STORE_TEST_H
#define FAKE_MOONCAKE_STORE_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "mooncake_store_abi.h"

typedef struct fake_api {
#define FIELD(ret, name, params) ret(*name) params;
  MCJ_STORE_FUNCTIONS(FIELD)
#undef FIELD
  int (*last_config)(char *buf, size_t len);
  int (*config_of)(const char *key, char *buf, size_t len);
  int (*last_tls)(char *buf, size_t len);
  void (*set_tls)(void *store, const char *ca, const char *cert, const char *key);
} fake_api;

extern int failures;

/* Records a failure (with a printf-style message) unless condition holds. */
void check(int condition, const char *format, ...) __attribute__((format(printf, 2, 3)));
void load_api(void *library, fake_api *api);
/* create + setup over TCP with the given segment size; exits when create fails. */
void *set_up_client(fake_api *api, uint64_t segment);

#endif
