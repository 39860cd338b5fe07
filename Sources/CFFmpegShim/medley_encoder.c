/* The audio encoder (medley_encoder_*, medley_ffmpeg.h): interleaved float frames into a container
 * through libavcodec's send/receive API, on the caller's thread or on a thread of its own
 * (medley_encoder_start_thread). */
#include "medley_ffmpeg_internal.h"

#include <libavutil/channel_layout.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUED 4 /* blocks waiting for the encoder thread: enough to ride out a slow block either side */

struct MedleyEncoder {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    int channels;
    int filled;      /* frames waiting in `frame` */
    int64_t next_pts;
    int header_written;
    /* The encoder thread (medley_encoder_start_thread): the caller's blocks are copied into a ring
     * of `QUEUED` slots and encoded, in order, on `thread`, so decoding and resampling on the
     * caller's thread overlap the encoder. Everything below `lock` is guarded by it; a slot's
     * samples belong to the caller until it is queued and to the thread until it is taken off. */
    int threaded;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct { float *samples; int frames; size_t capacity; } slots[QUEUED];
    int head, queued;   /* slots[head] is the oldest queued block; `queued` blocks wait */
    int closing;        /* no more blocks come: the thread ends once the queue is empty */
    int failed;         /* the thread's first error is in `failure`; later blocks are dropped */
    char failure[512];
    int failure_code;   /* the FFmpeg code behind `failure`, or 0 */
};

static inline float clip(float v) { return v > 1 ? 1 : (v < -1 ? -1 : v); }

/* Converts `count` interleaved floats into the frame's sample format at position `offset`. The
 * format is looked at once per call, not per sample: planar float (AAC, Opus) is the hot path. */
static void store_samples(AVFrame *frame, int offset, const float *in, int count, int channels) {
    enum AVSampleFormat format = frame->format;
    int planar = av_sample_fmt_is_planar(format);
    enum AVSampleFormat packed = av_get_packed_sample_fmt(format);
    for (int c = 0; c < channels; c++) {
        uint8_t *plane = planar ? frame->extended_data[c] : frame->extended_data[0];
        int step = planar ? 1 : channels;
        int first = planar ? offset : offset * channels + c;
        const float *src = in + c;
        switch (packed) {
        case AV_SAMPLE_FMT_FLT: {
            float *out = (float *)plane + first;
            for (int i = 0; i < count; i++) out[i * step] = clip(src[i * channels]);
            break;
        }
        case AV_SAMPLE_FMT_DBL: {
            double *out = (double *)plane + first;
            for (int i = 0; i < count; i++) out[i * step] = clip(src[i * channels]);
            break;
        }
        case AV_SAMPLE_FMT_S16: {
            int16_t *out = (int16_t *)plane + first;
            for (int i = 0; i < count; i++) {
                long v = lrintf(clip(src[i * channels]) * 32768.0f);
                out[i * step] = (int16_t)(v > 32767 ? 32767 : v);
            }
            break;
        }
        case AV_SAMPLE_FMT_S32: {
            int32_t *out = (int32_t *)plane + first;
            for (int i = 0; i < count; i++) {
                long long v = llrint((double)clip(src[i * channels]) * 2147483648.0);
                out[i * step] = (int32_t)(v > 2147483647LL ? 2147483647LL : v);
            }
            break;
        }
        case AV_SAMPLE_FMT_U8: {
            uint8_t *out = plane + first;
            for (int i = 0; i < count; i++) out[i * step] = (uint8_t)lrintf(clip(src[i * channels]) * 127.0f + 128.0f);
            break;
        }
        default:
            break;
        }
    }
}

static int send_frame(MedleyEncoder *e, AVFrame *frame, char *error, size_t size) {
    if (frame) {
        frame->pts = e->next_pts;
        e->next_pts += frame->nb_samples;
    }
    int r = avcodec_send_frame(e->codec, frame);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
    return medley_output_drain(e->codec, e->stream, e->format, e->packet, error, size);
}

MedleyEncoder *medley_encoder_open(const char *path, const char *format_name, const char *codec_name, int sample_rate,
                                   int channels, int64_t bit_rate, int bits_per_sample, char *error, size_t size) {
    /* Encoder statistics ("Qavg: …") are noise in a batch run; errors still come back as text. */
    av_log_set_level(AV_LOG_ERROR);
    MedleyEncoder *e = calloc(1, sizeof *e);
    if (!e) { snprintf(error, size, "out of memory"); return NULL; }
    e->channels = channels;
    const AVCodec *codec = avcodec_find_encoder_by_name(codec_name);
    if (!codec) { snprintf(error, size, "this FFmpeg has no %s encoder", codec_name); goto fail; }
    int r = avformat_alloc_output_context2(&e->format, NULL, format_name, path);
    if (r < 0 || !e->format) { medley_ffmpeg_set_error(error, size, "cannot create the container", r); goto fail; }
    e->stream = avformat_new_stream(e->format, NULL);
    e->codec = avcodec_alloc_context3(codec);
    if (!e->stream || !e->codec) { snprintf(error, size, "out of memory"); goto fail; }
    e->codec->sample_rate = sample_rate;
    av_channel_layout_default(&e->codec->ch_layout, channels);
    if (bit_rate > 0) e->codec->bit_rate = bit_rate;
    /* The encoder's preferred sample format: the first it lists, or one matching the bit depth. */
    const enum AVSampleFormat *formats = codec->sample_fmts;
    e->codec->sample_fmt = formats ? formats[0] : AV_SAMPLE_FMT_FLTP;
    if (formats && bits_per_sample > 16) {
        for (int i = 0; formats[i] != AV_SAMPLE_FMT_NONE; i++) {
            if (av_get_bytes_per_sample(formats[i]) >= 4) { e->codec->sample_fmt = formats[i]; break; }
        }
    } else if (formats) {
        for (int i = 0; formats[i] != AV_SAMPLE_FMT_NONE; i++) {
            if (av_get_bytes_per_sample(formats[i]) == 2) { e->codec->sample_fmt = formats[i]; break; }
        }
        if (strcmp(codec_name, "aac") == 0 || strcmp(codec_name, "libopus") == 0) {
            for (int i = 0; formats[i] != AV_SAMPLE_FMT_NONE; i++) {
                if (formats[i] == AV_SAMPLE_FMT_FLTP || formats[i] == AV_SAMPLE_FMT_FLT) { e->codec->sample_fmt = formats[i]; break; }
            }
        }
    }
    if (bits_per_sample > 0) e->codec->bits_per_raw_sample = bits_per_sample;
    e->codec->time_base = (AVRational){1, sample_rate};
    /* AVEncoderBitRateKey asks for a rate: hold libopus to it rather than let VBR wander. */
    if (strcmp(codec_name, "libopus") == 0 && bit_rate > 0) av_opt_set(e->codec, "vbr", "constrained", AV_OPT_SEARCH_CHILDREN);
    if (e->format->oformat->flags & AVFMT_GLOBALHEADER) e->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    r = avcodec_open2(e->codec, codec, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot start the encoder", r); goto fail; }
    r = avcodec_parameters_from_context(e->stream->codecpar, e->codec);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the stream", r); goto fail; }
    e->stream->time_base = e->codec->time_base;
    if (!(e->format->oformat->flags & AVFMT_NOFILE)) {
        r = avio_open(&e->format->pb, path, AVIO_FLAG_WRITE);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot create the file", r); goto fail; }
    }
    r = avformat_write_header(e->format, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write the header", r); goto fail; }
    e->header_written = 1;
    e->frame = av_frame_alloc();
    e->packet = av_packet_alloc();
    if (!e->frame || !e->packet) { snprintf(error, size, "out of memory"); goto fail; }
    e->frame->format = e->codec->sample_fmt;
    r = av_channel_layout_copy(&e->frame->ch_layout, &e->codec->ch_layout);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the channels", r); goto fail; }
    e->frame->sample_rate = sample_rate;
    e->frame->nb_samples = e->codec->frame_size > 0 ? e->codec->frame_size : 4096;
    r = av_frame_get_buffer(e->frame, 0);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot allocate a frame", r); goto fail; }
    return e;
fail:
    medley_encoder_free(e);
    return NULL;
}

/* Encodes `frames` interleaved frames on the calling thread (frame by frame as they fill). */
static int encode_block(MedleyEncoder *e, const float *samples, int frames, char *error, size_t size) {
    int capacity = e->frame->nb_samples;
    while (frames > 0) {
        if (av_frame_make_writable(e->frame) < 0) { snprintf(error, size, "cannot reuse a frame"); return -1; }
        int take = capacity - e->filled;
        if (take > frames) take = frames;
        store_samples(e->frame, e->filled, samples, take, e->channels);
        e->filled += take;
        samples += take * e->channels;
        frames -= take;
        if (e->filled == capacity) {
            if (send_frame(e, e->frame, error, size)) return -1;
            e->filled = 0;
        }
    }
    return 0;
}

static void *encode_queued(void *argument) {
    MedleyEncoder *e = argument;
    char text[sizeof e->failure];
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (e->queued == 0 && !e->closing) pthread_cond_wait(&e->changed, &e->lock);
        if (e->queued == 0) break;
        int slot = e->head, failed = e->failed;
        pthread_mutex_unlock(&e->lock);
        medley_ffmpeg_take_error_code();
        int r = failed ? 0 : encode_block(e, e->slots[slot].samples, e->slots[slot].frames, text, sizeof text);
        int code = medley_ffmpeg_take_error_code();
        pthread_mutex_lock(&e->lock);
        if (r && !e->failed) {
            e->failed = 1;
            e->failure_code = code;
            snprintf(e->failure, sizeof e->failure, "%s", text);
        }
        e->head = (e->head + 1) % QUEUED;
        e->queued--;
        pthread_cond_broadcast(&e->changed);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

int medley_encoder_start_thread(MedleyEncoder *e) {
    if (e->threaded) return 0;
    if (pthread_mutex_init(&e->lock, NULL)) return -1;
    if (pthread_cond_init(&e->changed, NULL)) { pthread_mutex_destroy(&e->lock); return -1; }
    if (pthread_create(&e->thread, NULL, encode_queued, e)) {
        pthread_cond_destroy(&e->changed);
        pthread_mutex_destroy(&e->lock);
        return -1;
    }
    e->threaded = 1;
    return 0;
}

/* Lets the thread encode what is queued (or drop it, when `abandon`), then joins it: afterwards
 * the encoder is the caller's alone again. Returns −1 with `error` set if the thread failed. */
static int stop_thread(MedleyEncoder *e, int abandon, char *error, size_t size) {
    if (!e->threaded) return 0;
    pthread_mutex_lock(&e->lock);
    e->closing = 1;
    if (abandon) e->failed = 1;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->lock);
    pthread_join(e->thread, NULL);
    pthread_cond_destroy(&e->changed);
    pthread_mutex_destroy(&e->lock);
    e->threaded = 0;
    if (e->failed && !abandon) {
        snprintf(error, size, "%s", e->failure);
        medley_ffmpeg_note_error_code(e->failure_code);
        return -1;
    }
    return 0;
}

int medley_encoder_write(MedleyEncoder *e, const float *samples, int frames, char *error, size_t size) {
    if (!e->threaded) return encode_block(e, samples, frames, error, size);
    if (frames <= 0) return 0;
    pthread_mutex_lock(&e->lock);
    while (e->queued == QUEUED && !e->failed) pthread_cond_wait(&e->changed, &e->lock);
    int failed = e->failed, slot = (e->head + e->queued) % QUEUED;
    if (failed) {
        snprintf(error, size, "%s", e->failure);
        medley_ffmpeg_note_error_code(e->failure_code);
    }
    pthread_mutex_unlock(&e->lock);
    if (failed) return -1;
    size_t count = (size_t)frames * (size_t)e->channels;
    if (e->slots[slot].capacity < count) {
        float *grown = realloc(e->slots[slot].samples, count * sizeof *grown);
        if (!grown) { snprintf(error, size, "out of memory"); return -1; }
        e->slots[slot].samples = grown;
        e->slots[slot].capacity = count;
    }
    memcpy(e->slots[slot].samples, samples, count * sizeof *samples);
    e->slots[slot].frames = frames;
    pthread_mutex_lock(&e->lock);
    e->queued++;
    pthread_cond_broadcast(&e->changed);
    pthread_mutex_unlock(&e->lock);
    return 0;
}

int medley_encoder_finish(MedleyEncoder *e, char *error, size_t size) {
    if (stop_thread(e, 0, error, size)) return -1;
    if (e->filled > 0) {
        /* The last, short frame: encoders with a fixed frame size accept a short final one. */
        e->frame->nb_samples = e->filled;
        if (send_frame(e, e->frame, error, size)) return -1;
        e->filled = 0;
    }
    if (send_frame(e, NULL, error, size)) return -1;
    int r = av_write_trailer(e->format);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); return -1; }
    if (!(e->format->oformat->flags & AVFMT_NOFILE)) avio_closep(&e->format->pb);
    return 0;
}

void medley_encoder_free(MedleyEncoder *e) {
    if (!e) return;
    char ignored[8];
    stop_thread(e, 1, ignored, sizeof ignored);
    for (int i = 0; i < QUEUED; i++) free(e->slots[i].samples);
    av_frame_free(&e->frame);
    av_packet_free(&e->packet);
    avcodec_free_context(&e->codec);
    if (e->format) {
        if (!(e->format->oformat->flags & AVFMT_NOFILE) && e->format->pb) avio_closep(&e->format->pb);
        avformat_free_context(e->format);
    }
    free(e);
}
