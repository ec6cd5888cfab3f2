/* Streaming decoder for HTTP Content-Encoding (gzip, deflate, br), for the Fetch
 * area. libcurl 7.88 decodes these itself but accepts a compressed stream that
 * stops before its end, so a cut-off body would pass for a whole photo; here the
 * end of the stream is known (shim_decoder_run returns 2 only once it is reached).
 * zlib's inflateInit2 is a macro, hence C. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <zlib.h>
#include <brotli/decode.h>
#include "cshim.h"

enum { KIND_GZIP = 1, KIND_DEFLATE, KIND_BROTLI };

struct shim_decoder {
    int kind;
    int started;      /* some input was taken */
    int raw_deflate;  /* "deflate" sent without its zlib wrapper (old servers) */
    int ended;        /* the stream (for gzip: the last member so far) reached its end */
    int has_pending;  /* gzip: a lone 0x1f after a member's end, held to see if 0x8b follows */
    unsigned char pending;
    z_stream zlib;
    BrotliDecoderState *brotli;
};

shim_decoder *shim_decoder_new(const char *encoding) {
    int kind;
    if (!strcasecmp(encoding, "gzip") || !strcasecmp(encoding, "x-gzip")) kind = KIND_GZIP;
    else if (!strcasecmp(encoding, "deflate")) kind = KIND_DEFLATE;
    else if (!strcasecmp(encoding, "br")) kind = KIND_BROTLI;
    else return NULL;
    shim_decoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->kind = kind;
    if (kind == KIND_BROTLI) {
        decoder->brotli = BrotliDecoderCreateInstance(NULL, NULL, NULL);
        if (!decoder->brotli) { free(decoder); return NULL; }
    } else if (inflateInit2(&decoder->zlib, kind == KIND_GZIP ? 15 + 32 : 15) != Z_OK) {
        free(decoder);
        return NULL;
    }
    return decoder;
}

void shim_decoder_free(shim_decoder *decoder) {
    if (!decoder) return;
    if (decoder->brotli) BrotliDecoderDestroyInstance(decoder->brotli);
    else inflateEnd(&decoder->zlib);
    free(decoder);
}

static int run_brotli(shim_decoder *decoder, const unsigned char **in, size_t *in_left, unsigned char *out, size_t *out_len) {
    size_t room = *out_len;
    unsigned char *next_out = out;
    BrotliDecoderResult result = BrotliDecoderDecompressStream(decoder->brotli, in_left, in, &room, &next_out, NULL);
    *out_len = (size_t)(next_out - out);
    switch (result) {
    case BROTLI_DECODER_RESULT_SUCCESS:
        decoder->ended = 1;
        return *in_left > 0 ? 3 : 2;
    case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: return 1;
    case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return 0;
    default: return -1;
    }
}

/* After a gzip member's end: another member (RFC 1952 2.2: 1f 8b) starts a fresh
 * inflate; anything else is data after the end of the stream. The two magic bytes
 * may arrive in two reads, so a lone 0x1f is held. Returns 0 when the next member
 * started, 4 when a 0x1f is held (more input is needed to tell), 2 when no input is
 * left, 3 for trailing data. */
static int next_gzip_member(shim_decoder *decoder, const unsigned char **in, size_t *in_left) {
    if (*in_left == 0) return 2;
    if (!decoder->has_pending) {
        if ((*in)[0] != 0x1f) return 3;
        if (*in_left == 1) {
            decoder->has_pending = 1;
            decoder->pending = 0x1f;
            *in += 1;
            *in_left -= 1;
            return 4;  /* perhaps a member's first byte: not an end until the next byte says so */
        }
        if ((*in)[1] != 0x8b) return 3;
        inflateReset(&decoder->zlib);
        decoder->ended = 0;
        return 0;
    }
    if ((*in)[0] != 0x8b) return 3;
    /* The held 0x1f is the new member's first byte: hand it to inflate first. */
    z_stream *z = &decoder->zlib;
    inflateReset(z);
    unsigned char first = decoder->pending, sink[1];
    z->next_in = &first;
    z->avail_in = 1;
    z->next_out = sink;
    z->avail_out = sizeof sink;
    if (inflate(z, Z_NO_FLUSH) != Z_OK || z->avail_in != 0) return -1;
    decoder->has_pending = 0;
    decoder->ended = 0;
    return 0;
}

static int run_zlib(shim_decoder *decoder, const unsigned char **in, size_t *in_left, unsigned char *out, size_t *out_len) {
    z_stream *z = &decoder->zlib;
    if (decoder->ended) {
        if (decoder->kind != KIND_GZIP) {
            *out_len = 0;
            return *in_left > 0 ? 3 : 2;
        }
        int next = next_gzip_member(decoder, in, in_left);
        if (next != 0) {
            *out_len = 0;
            return next == 4 ? 0 : next;
        }
    }
    uInt offered = *in_left > UINT_MAX ? UINT_MAX : (uInt)*in_left;
    z->next_in = (unsigned char *)*in;
    z->avail_in = offered;
    z->next_out = out;
    z->avail_out = *out_len > UINT_MAX ? UINT_MAX : (uInt)*out_len;
    int status = inflate(z, Z_NO_FLUSH);
    if (status == Z_DATA_ERROR && decoder->kind == KIND_DEFLATE && !decoder->started && !decoder->raw_deflate) {
        /* Not zlib-wrapped: try raw deflate from the same first bytes. */
        decoder->raw_deflate = 1;
        inflateEnd(z);
        memset(z, 0, sizeof *z);
        if (inflateInit2(z, -15) != Z_OK) return -1;
        return run_zlib(decoder, in, in_left, out, out_len);
    }
    size_t used = offered - z->avail_in;
    *in += used;
    *in_left -= used;
    *out_len = (size_t)(z->next_out - out);
    if (used > 0) decoder->started = 1;
    if (status == Z_STREAM_END) {
        decoder->ended = 1;
        if (*in_left == 0) return 2;
        /* More input: for gzip perhaps the next member (RFC 1952 2.2), decided on the next call. */
        if (decoder->kind == KIND_GZIP) return *out_len == 0 ? run_zlib(decoder, in, in_left, out, out_len) : 1;
        return *out_len == 0 ? 3 : 1;
    }
    if (status == Z_BUF_ERROR) return z->avail_out == 0 ? 1 : 0;
    if (status != Z_OK) return -1;
    return z->avail_out == 0 ? 1 : 0;
}

int shim_decoder_run(shim_decoder *decoder, const unsigned char **in, size_t *in_left, unsigned char *out, size_t *out_len) {
    if (decoder->brotli && decoder->ended) {
        *out_len = 0;
        return *in_left > 0 ? 3 : 2;
    }
    return decoder->brotli ? run_brotli(decoder, in, in_left, out, out_len) : run_zlib(decoder, in, in_left, out, out_len);
}
