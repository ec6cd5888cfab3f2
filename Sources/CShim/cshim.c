#define _GNU_SOURCE
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
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

CURLcode shim_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
CURLcode shim_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
CURLcode shim_curl_getinfo_string(CURL *h, CURLINFO i, const char **v) { return curl_easy_getinfo(h, i, v); }
CURLcode shim_curl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

CURLMcode shim_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

ExifContent *shim_exif_data_ifd(ExifData *data, ExifIfd ifd) {
    if (!data || ifd < 0 || ifd >= EXIF_IFD_COUNT) return NULL;
    return data->ifd[ifd];
}

VipsImage *shim_vips_open_header(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

static VipsInteresting crop_mode(int crop) {
    switch (crop) {
    case 1: return VIPS_INTERESTING_CENTRE;
    case 2: return VIPS_INTERESTING_ATTENTION;
    default: return VIPS_INTERESTING_NONE;
    }
}

int shim_vips_thumbnail(const char *path, VipsImage **out, int width, int height, int crop, int down) {
    return vips_thumbnail(path, out, width, "height", height, "crop", crop_mode(crop),
                          "size", down ? VIPS_SIZE_DOWN : VIPS_SIZE_BOTH, NULL);
}

int shim_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int crop, int down) {
    return vips_thumbnail_image(in, out, width, "height", height, "crop", crop_mode(crop),
                                "size", down ? VIPS_SIZE_DOWN : VIPS_SIZE_BOTH, NULL);
}

int shim_vips_jpegsave(VipsImage *in, const char *path, int q, int keep) {
    return vips_jpegsave(in, path, "Q", q, "strip", !keep, "optimize_coding", TRUE, NULL);
}

int shim_vips_webpsave(VipsImage *in, const char *path, int q, int keep) {
    return vips_webpsave(in, path, "Q", q, "strip", !keep, NULL);
}

int shim_vips_avifsave(VipsImage *in, const char *path, int q, int keep) {
    return vips_heifsave(in, path, "Q", q, "strip", !keep,
                         "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL);
}

int shim_vips_to_srgb(VipsImage *in, VipsImage **out) {
    if (vips_image_get_typeof(in, VIPS_META_ICC_NAME)) {
        return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, NULL);
    }
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

// ---- Library (storage) ----
int shim_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}
int shim_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}
// ---- Metadata ----
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

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

unsigned char *shim_zlib_inflate(const unsigned char *data, size_t size, size_t limit, size_t *out_size) {
    if (!data || !out_size || limit == 0) return NULL;
    *out_size = 0;
    GZlibDecompressor *decompressor = g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_ZLIB);
    if (!decompressor) return NULL;
    size_t capacity = limit < 4096 ? limit : 4096, used = 0, consumed = 0;
    unsigned char *out = malloc(capacity);
    int ok = 0;
    while (out) {
        gsize read = 0, written = 0;
        GError *error = NULL;
        GConverterResult result = g_converter_convert(G_CONVERTER(decompressor), data + consumed, size - consumed,
                                                      out + used, capacity - used, G_CONVERTER_INPUT_AT_END,
                                                      &read, &written, &error);
        consumed += read;
        used += written;
        if (result == G_CONVERTER_FINISHED) { ok = 1; break; }
        int no_space = result == G_CONVERTER_ERROR && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
        if (error) g_error_free(error);
        if (result == G_CONVERTER_ERROR && !no_space) break;
        if (no_space || used == capacity) {
            if (capacity >= limit) break;
            size_t grown = capacity * 2 < limit ? capacity * 2 : limit;
            unsigned char *bigger = realloc(out, grown);
            if (!bigger) break;
            out = bigger;
            capacity = grown;
        } else if (read == 0 && written == 0) {
            break;  // no progress: give up rather than spin
        }
    }
    g_object_unref(decompressor);
    if (!ok) { free(out); return NULL; }
    *out_size = used;
    return out;
}

void shim_free(void *pointer) { free(pointer); }
/* ---- libvips: thumbnails (Thumbnails area) ---- */
#include <malloc.h>

static void shim_vips_quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

int shim_vips_setup_batch(const char *argv0, int concurrency) {
    /* Batch decoding frees and reallocates multi-megabyte buffers on several
       threads: by default glibc keeps an arena per thread and raises its mmap
       threshold, so freed image buffers stay resident and peak RSS grows with
       the thread count. One arena (no measurable contention with a worker per
       core here) and fixed thresholds hand large buffers back at once:
       two sizes at -j 2 went from ~140 MB to ~88 MB peak. */
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
    if (vips_init(argv0 ? argv0 : "shoebox") != 0) return -1;
    /* Originals come from anywhere: refuse the loaders libvips marks untrusted
       (ImageMagick, MATLAB, FITS...), a large parsing surface; JPEG, PNG, WebP,
       HEIF/AVIF, TIFF and GIF stay available. */
    vips_block_untrusted_set(TRUE);
    /* Per-tile warnings ("error in tile 0 x 64") would interleave with our own
       messages, which name the file; the failure itself is still reported. */
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, shim_vips_quiet_log, NULL);
    vips_concurrency_set(concurrency < 1 ? 1 : concurrency);
    vips_cache_set_max(0);
    return 0;
}

void shim_release_free_memory(void) {
    malloc_trim(0);
}

int shim_vips_thumbnail_srgb(const char *path, VipsImage **out, int width, int height, int crop, int has_icc) {
    if (has_icc) {
        return vips_thumbnail(path, out, width, "height", height, "crop", crop_mode(crop),
                              "size", VIPS_SIZE_DOWN, "export_profile", "srgb",
                              "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    }
    return vips_thumbnail(path, out, width, "height", height, "crop", crop_mode(crop),
                          "size", VIPS_SIZE_DOWN, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

int shim_vips_has_icc(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

int shim_vips_thumbnail_derived(VipsImage *in, VipsImage **out, int width, int height, int crop) {
    return vips_thumbnail_image(in, out, width, "height", height, "crop", crop_mode(crop),
                                "size", VIPS_SIZE_DOWN, "no_rotate", TRUE, NULL);
}

int shim_vips_to_srgb8(VipsImage *in, VipsImage **out, int flatten_alpha) {
    VipsImage *current = in;
    VipsImage *next = NULL;
    g_object_ref(current);
    VipsInterpretation kind = vips_image_get_interpretation(current);
    int grey = kind == VIPS_INTERPRETATION_B_W;
    if ((kind != VIPS_INTERPRETATION_sRGB && !grey) || vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
        if (vips_colourspace(current, &next, grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB, NULL)) {
            g_object_unref(current);
            return -1;
        }
        g_object_unref(current);
        current = next;
        if (vips_image_get_format(current) != VIPS_FORMAT_UCHAR) {
            if (vips_cast_uchar(current, &next, NULL)) {
                g_object_unref(current);
                return -1;
            }
            g_object_unref(current);
            current = next;
        }
    }
    if (flatten_alpha && vips_image_hasalpha(current)) {
        double white[1] = { 255.0 };
        VipsArrayDouble *background = vips_array_double_new(white, 1);
        int failed = vips_flatten(current, &next, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        g_object_unref(current);
        if (failed) return -1;
        current = next;
    }
    *out = current;
    return 0;
}

void shim_vips_unref(VipsImage *image) {
    if (image) g_object_unref(image);
}

int shim_vips_thumbnail_jpeg(const char *path, VipsImage **out, int width, int height, int crop, int has_icc,
                             int shrink) {
    VipsImage *decoded = NULL;
    if (vips_jpegload(path, &decoded, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL,
                      "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL)) {
        return -1;
    }
    int status;
    if (has_icc) {
        status = vips_thumbnail_image(decoded, out, width, "height", height, "crop", crop_mode(crop),
                                      "size", VIPS_SIZE_DOWN, "export_profile", "srgb", NULL);
    } else {
        status = vips_thumbnail_image(decoded, out, width, "height", height, "crop", crop_mode(crop),
                                      "size", VIPS_SIZE_DOWN, NULL);
    }
    g_object_unref(decoded);
    return status;
}

int shim_vips_is_jpeg(VipsImage *image) {
    const char *loader = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER) == 0) return 0;
    if (vips_image_get_string(image, VIPS_META_LOADER, &loader)) return 0;
    return loader && strcmp(loader, "jpegload") == 0;
}
