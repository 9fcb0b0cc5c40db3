/* Argon2 (the reference library), for the carer's page: its password kept only as a memory-hard hash. */
#include <argon2.h>
