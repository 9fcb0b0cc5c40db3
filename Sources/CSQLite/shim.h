/* SQLite, for the reminder ledger: what became of each reminder, kept across restarts and power cuts. */
#include <sqlite3.h>
