#define _GNU_SOURCE
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "cshim.h"

CURLcode shim_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode shim_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
CURLcode shim_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode shim_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode shim_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
CURLcode shim_curl_setopt_data_function(CURL *h, CURLoption o, shim_curl_data_fn fn) {
    return curl_easy_setopt(h, o, fn);
}
CURLcode shim_curl_setopt_xferinfo_function(CURL *h, shim_curl_xferinfo_fn fn) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, fn);
}

CURLcode shim_curl_setopt_seek_function(CURL *h, shim_curl_seek_fn fn) {
    return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, fn);
}

CURLcode shim_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
CURLcode shim_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
CURLcode shim_curl_getinfo_string(CURL *h, CURLINFO i, const char **v) { return curl_easy_getinfo(h, i, v); }
CURLcode shim_curl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

CURLMcode shim_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
CURLSHcode shim_curl_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }

ExifContent *shim_exif_data_ifd(ExifData *data, ExifIfd ifd) {
    if (!data || ifd < 0 || ifd >= EXIF_IFD_COUNT) return NULL;
    return data->ifd[ifd];
}

// ---- Library (storage) ----
int shim_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}
int shim_renameat_noreplace(const char *from, int to_folder, const char *to_name) {
    return renameat2(AT_FDCWD, from, to_folder, to_name, RENAME_NOREPLACE);
}
int shim_set_direct_io(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, on ? (flags | O_DIRECT) : (flags & ~O_DIRECT));
}
// ---- Signals ----
static volatile sig_atomic_t shim_signal_fd = -1;

static void shim_signal_handler(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    if (shim_signal_fd >= 0) (void)!write(shim_signal_fd, &byte, 1);
    errno = saved;
}

int shim_signal_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    int flags = fcntl(fds[1], F_GETFL);
    if (flags < 0 || fcntl(fds[1], F_SETFL, flags | O_NONBLOCK) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    return 0;
}

int shim_signal_forward(int number, int fd) {
    shim_signal_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = shim_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(number, &action, NULL);
}
// ---- Metadata ----
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <zlib.h>

typedef struct {
    char *buffer;
    size_t size;
    size_t used;
} shim_exif_log_sink;

static void shim_exif_log_func(ExifLog *log, ExifLogCode code, const char *domain, const char *format,
                               va_list args, void *data) {
    (void)log;
    (void)domain;
    shim_exif_log_sink *sink = data;
    if (!sink || code != EXIF_LOG_CODE_CORRUPT_DATA) return;
    if (sink->used + 2 >= sink->size) return;
    int n = vsnprintf(sink->buffer + sink->used, sink->size - sink->used - 1, format, args);
    if (n < 0) return;
    size_t written = (size_t)n < sink->size - sink->used - 1 ? (size_t)n : sink->size - sink->used - 2;
    sink->used += written;
    sink->buffer[sink->used++] = '\n';
    sink->buffer[sink->used] = '\0';
}

ExifData *shim_exif_load(const unsigned char *data, unsigned int size, char *warnings, size_t warnings_size) {
    shim_exif_log_sink sink = {warnings, warnings_size, 0};
    if (warnings && warnings_size) warnings[0] = '\0';
    ExifData *exif = exif_data_new();
    if (!exif) return NULL;
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_unset_option(exif, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    ExifLog *log = exif_log_new();
    if (log && warnings && warnings_size > 2) {
        exif_log_set_func(log, shim_exif_log_func, &sink);
        exif_data_log(exif, log);
    }
    if (data && size) exif_data_load_data(exif, data, size);
    if (log) {
        // The sink lives on this stack frame: detach it before returning.
        exif_log_set_func(log, NULL, NULL);
        exif_log_unref(log);
    }
    return exif;
}

unsigned char *shim_zlib_inflate(const unsigned char *data, size_t size, size_t limit, size_t *out_size, int *too_large) {
    if (!data || !out_size || !too_large || limit == 0 || size > UINT_MAX) return NULL;
    *out_size = 0;
    *too_large = 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return NULL;
    size_t capacity = limit < 4096 ? limit : 4096;
    unsigned char *out = malloc(capacity);
    stream.next_in = (unsigned char *)data;
    stream.avail_in = (uInt)size;
    int status = Z_OK;
    while (out) {
        stream.next_out = out + stream.total_out;
        stream.avail_out = (uInt)(capacity - stream.total_out);
        status = inflate(&stream, Z_FINISH);
        if (status == Z_STREAM_END) break;
        int starved = status == Z_BUF_ERROR && stream.avail_out == 0;
        if (status != Z_OK && !starved) break;  // corrupt, or input cut short
        if (stream.avail_out != 0) break;        // made no use of the room: input cut short
        if (capacity >= limit) { status = Z_MEM_ERROR; *too_large = 1; break; }
        size_t grown = capacity * 2 < limit ? capacity * 2 : limit;
        unsigned char *bigger = realloc(out, grown);
        if (!bigger) { status = Z_MEM_ERROR; break; }
        out = bigger;
        capacity = grown;
    }
    size_t used = stream.total_out;
    inflateEnd(&stream);
    if (status != Z_STREAM_END) { free(out); return NULL; }
    *out_size = used;
    return out;
}

void shim_free(void *pointer) { free(pointer); }
