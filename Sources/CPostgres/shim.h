// libpq, the PostgreSQL client library (Debian: libpq-dev). The calls Shoebox makes
// (PQconnectdbParams, PQprepare, PQexecPrepared, PQexec, PQresultStatus, PQgetvalue,
// PQresultErrorField, ...) are not variadic: Swift calls them directly.
#include <libpq-fe.h>
