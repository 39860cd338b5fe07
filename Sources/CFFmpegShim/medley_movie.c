/* See medley_movie.h. Plain C over libavformat/libavcodec's send/receive API, libswscale for
 * pictures and libswresample for sound. */
#include "medley_movie.h"
#include "medley_ffmpeg.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/avstring.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A damaged file makes decoders reject packets; FFmpeg's CLI skips them, and so does Medley,
 * up to this many per file before giving up on it. */
#define MAX_DECODE_ERRORS 100
/* av_read_frame returns EAGAIN only for live sources; a file that keeps saying it is stuck. */
#define MAX_READ_RETRIES 1000
/* Seeks that land after the wanted time are retried this many times, further back each time,
 * before decoding from the very start. */
#define MAX_SEEK_RETRIES 4

static void set_error(char *error, size_t size, const char *what, int code) {
    medley_ffmpeg_note_error_code(code);
    char text[AV_ERROR_MAX_STRING_SIZE] = "";
    if (code) av_strerror(code, text, sizeof text);
    snprintf(error, size, code ? "%s: %s" : "%s", what, text);
}

static void copy_text(char *to, size_t size, const char *from) {
    snprintf(to, size, "%s", from ? from : "");
}

/* ---- opening ---- */

typedef struct Input {
    AVFormatContext *format;
    int video, audio;          /* stream indexes; audio is −1 without one */
    AVCodecContext *video_decoder, *audio_decoder;
} Input;

/* The first video stream that is not cover art, preferring one marked default. */
static int pick_video(const AVFormatContext *format) {
    int best = -1;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        const AVStream *s = format->streams[i];
        if (s->codecpar->codec_type != AVMEDIA_TYPE_VIDEO || (s->disposition & AV_DISPOSITION_ATTACHED_PIC)) continue;
        if (best < 0 || ((s->disposition & AV_DISPOSITION_DEFAULT) &&
                         !(format->streams[best]->disposition & AV_DISPOSITION_DEFAULT)))
            best = (int)i;
    }
    return best;
}

static void input_close(Input *in) {
    avcodec_free_context(&in->video_decoder);
    avcodec_free_context(&in->audio_decoder);
    avformat_close_input(&in->format);
}

static int input_open(Input *in, const char *path, char *error, size_t size) {
    memset(in, 0, sizeof *in);
    in->video = in->audio = -1;
    int r = avformat_open_input(&in->format, path, NULL, NULL);
    if (r < 0) { set_error(error, size, "cannot read the container", r); return -1; }
    r = avformat_find_stream_info(in->format, NULL);
    if (r < 0) { set_error(error, size, "cannot read the streams", r); return -1; }
    in->video = pick_video(in->format);
    if (in->video < 0) { snprintf(error, size, "no video stream"); return -1; }
    in->audio = av_find_best_stream(in->format, AVMEDIA_TYPE_AUDIO, -1, in->video, NULL, 0);
    if (in->audio < 0) in->audio = -1;
    const AVCodecParameters *v = in->format->streams[in->video]->codecpar;
    if (v->width <= 0 || v->height <= 0) { snprintf(error, size, "the video stream has no picture size"); return -1; }
    return 0;
}

/* threads: 0 lets FFmpeg choose (one per core), 1 decodes on the calling thread. */
static int open_decoder(Input *in, int stream, AVCodecContext **decoder, int threads, char *error, size_t size) {
    const AVCodecParameters *par = in->format->streams[stream]->codecpar;
    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec) {
        snprintf(error, size, "this FFmpeg cannot decode %s", avcodec_get_name(par->codec_id));
        return -1;
    }
    *decoder = avcodec_alloc_context3(codec);
    if (!*decoder) { snprintf(error, size, "out of memory"); return -1; }
    int r = avcodec_parameters_to_context(*decoder, par);
    if (r < 0) { set_error(error, size, "cannot read the stream parameters", r); return -1; }
    (*decoder)->pkt_timebase = in->format->streams[stream]->time_base;
    (*decoder)->thread_count = threads;
    r = avcodec_open2(*decoder, codec, NULL);
    if (r < 0) { set_error(error, size, "cannot start the decoder", r); return -1; }
    return 0;
}

/* ---- probe ---- */

/* The display matrix (or, in older files, the `rotate` tag) as clockwise quarter turns in degrees. */
static int displayed_rotation(const AVStream *stream, const int32_t **matrix_out) {
    const int32_t *matrix = NULL;
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                         stream->codecpar->nb_coded_side_data,
                                                         AV_PKT_DATA_DISPLAYMATRIX);
    if (sd && sd->size >= 9 * sizeof(int32_t)) matrix = (const int32_t *)sd->data;
#else
    size_t length = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &length);
    if (data && length >= 9 * sizeof(int32_t)) matrix = (const int32_t *)data;
#endif
    if (matrix_out) *matrix_out = matrix;
    double degrees = 0;
    if (matrix) {
        /* FFmpeg's angle is counter-clockwise; the CLI turns the picture by its negation. */
        degrees = -av_display_rotation_get(matrix);
    } else {
        const AVDictionaryEntry *tag = av_dict_get(stream->metadata, "rotate", NULL, 0);
        if (tag) degrees = strtod(tag->value, NULL);
    }
    if (!isfinite(degrees)) return 0;
    long quarters = lround(degrees / 90.0) % 4;
    return (int)((quarters + 4) % 4) * 90;
}

int medley_movie_probe(const char *path, MedleyMovieInfo *info, MedleyMovieTagVisitor visit, void *context,
                       char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    memset(info, 0, sizeof *info);
    Input in;
    int result = -1;
    if (input_open(&in, path, error, size) < 0) goto done;
    const AVFormatContext *f = in.format;
    const AVStream *v = f->streams[in.video];
    if (f->duration != AV_NOPTS_VALUE && f->duration > 0) info->duration = f->duration / (double)AV_TIME_BASE;
    else if (v->duration != AV_NOPTS_VALUE && v->duration > 0) info->duration = v->duration * av_q2d(v->time_base);
    info->start_time = f->start_time == AV_NOPTS_VALUE ? 0 : f->start_time / (double)AV_TIME_BASE;
    info->width = v->codecpar->width;
    info->height = v->codecpar->height;
    AVRational sar = av_guess_sample_aspect_ratio(in.format, (AVStream *)v, NULL);
    info->sar_num = sar.num > 0 && sar.den > 0 ? sar.num : 0;
    info->sar_den = sar.num > 0 && sar.den > 0 ? sar.den : 1;
    AVRational rate = v->avg_frame_rate.num > 0 && v->avg_frame_rate.den > 0 ? v->avg_frame_rate : v->r_frame_rate;
    info->frame_rate_num = rate.num > 0 && rate.den > 0 ? rate.num : 0;
    info->frame_rate_den = rate.num > 0 && rate.den > 0 ? rate.den : 1;
    info->bit_rate = f->bit_rate > 0 ? f->bit_rate : 0;
    const int32_t *matrix = NULL;
    info->rotation = displayed_rotation(v, &matrix);
    info->has_display_matrix = matrix != NULL;
    copy_text(info->format, sizeof info->format, f->iformat->name);
    copy_text(info->video_codec, sizeof info->video_codec, avcodec_get_name(v->codecpar->codec_id));
    const char *pixels = av_get_pix_fmt_name(v->codecpar->format);
    copy_text(info->pixel_format, sizeof info->pixel_format, pixels);
    if (in.audio >= 0) {
        const AVCodecParameters *a = f->streams[in.audio]->codecpar;
        copy_text(info->audio_codec, sizeof info->audio_codec, avcodec_get_name(a->codec_id));
        info->sample_rate = a->sample_rate;
        info->channels = a->ch_layout.nb_channels;
    }
    if (visit) {
        const AVDictionaryEntry *tag = NULL;
        while ((tag = av_dict_get(f->metadata, "", tag, AV_DICT_IGNORE_SUFFIX))) visit(context, tag->key, tag->value);
    }
    result = 0;
done:
    input_close(&in);
    return result;
}

/* ---- frame at a time ---- */

static int64_t container_start(const AVFormatContext *format) {
    return format->start_time == AV_NOPTS_VALUE ? 0 : format->start_time;
}

static int64_t frame_duration(const AVFrame *frame, const AVStream *stream) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    int64_t d = frame->duration;
#else
    int64_t d = frame->pkt_duration;
#endif
    if (d > 0) return d;
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    if (rate.num > 0 && rate.den > 0) return av_rescale_q(1, av_inv_q(rate), stream->time_base);
    return 1;
}

/* Decodes the next frame of the video stream into `frame`. Returns 1, 0 at the end, −1 on error.
 * A read error counts as the end, as in FFmpeg's CLI (a truncated file is decoded up to where it
 * stops); rejected packets are skipped up to MAX_DECODE_ERRORS. */
static int next_video_frame(Input *in, AVPacket *packet, AVFrame *frame, int *flushing, int *errors,
                            char *error, size_t size) {
    int retries = 0;
    for (;;) {
        int r = avcodec_receive_frame(in->video_decoder, frame);
        if (r == 0) return 1;
        if (r == AVERROR_EOF) return 0;
        if (r != AVERROR(EAGAIN)) {
            if (++*errors > MAX_DECODE_ERRORS) { set_error(error, size, "too many undecodable frames", r); return -1; }
            continue;
        }
        if (*flushing) return 0;
        r = av_read_frame(in->format, packet);
        if (r == AVERROR(EAGAIN)) {
            if (++retries > MAX_READ_RETRIES) { snprintf(error, size, "the file stopped delivering data"); return -1; }
            continue;
        }
        if (r < 0) {
            *flushing = 1;
            avcodec_send_packet(in->video_decoder, NULL);
            continue;
        }
        if (packet->stream_index == in->video) {
            r = avcodec_send_packet(in->video_decoder, packet);
            if (r < 0 && r != AVERROR(EAGAIN) && ++*errors > MAX_DECODE_ERRORS) {
                av_packet_unref(packet);
                set_error(error, size, "too many undecodable packets", r);
                return -1;
            }
        }
        av_packet_unref(packet);
    }
}

/* Whether the decoder says a frame is damaged: concealed errors (decode_error_flags) or missing
 * references (AV_FRAME_FLAG_CORRUPT). */
static int is_damaged(const AVFrame *frame) {
    return (frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags;
}

/* 8-bit RGB, rows packed, converted as FFmpeg's CLI converts (bicubic swscale, the frame's own
 * YUV matrix and range). */
static uint8_t *frame_to_rgb(const AVFrame *frame, char *error, size_t size) {
    int w = frame->width, h = frame->height;
    struct SwsContext *sws = sws_getContext(w, h, frame->format, w, h, AV_PIX_FMT_RGB24, SWS_BICUBIC, NULL, NULL, NULL);
    if (!sws) { snprintf(error, size, "cannot convert %s pictures to RGB", av_get_pix_fmt_name(frame->format)); return NULL; }
    int *inverse, *table, source_full, destination_full, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(sws, &inverse, &source_full, &table, &destination_full, &brightness, &contrast,
                                 &saturation) >= 0) {
        if (frame->colorspace != AVCOL_SPC_UNSPECIFIED) inverse = (int *)sws_getCoefficients(frame->colorspace);
        if (frame->color_range != AVCOL_RANGE_UNSPECIFIED) source_full = frame->color_range == AVCOL_RANGE_JPEG;
        sws_setColorspaceDetails(sws, inverse, source_full, table, destination_full, brightness, contrast, saturation);
    }
    /* swscale writes whole SIMD blocks: give it an aligned stride, then pack the rows. */
    int stride = FFALIGN(w * 3, 64);
    uint8_t *rgb = av_malloc((size_t)stride * h + 64);
    if (!rgb) { sws_freeContext(sws); snprintf(error, size, "out of memory"); return NULL; }
    uint8_t *planes[4] = {rgb, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    int rows = sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, h, planes, strides);
    sws_freeContext(sws);
    if (rows != h) { av_free(rgb); snprintf(error, size, "cannot convert the picture to RGB"); return NULL; }
    uint8_t *packed = malloc((size_t)w * 3 * h);
    if (!packed) { av_free(rgb); snprintf(error, size, "out of memory"); return NULL; }
    for (int y = 0; y < h; y++) memcpy(packed + (size_t)y * w * 3, rgb + (size_t)y * stride, (size_t)w * 3);
    av_free(rgb);
    return packed;
}

/* Where to seek after a seek landed too late: 1 s before `from`, then 2 s, 4 s, …; after
 * MAX_SEEK_RETRIES tries, the stream's first timestamp (decode from the start). */
static int64_t earlier(int64_t from, int *attempt, int64_t first, AVRational time_base) {
    int64_t step = av_rescale_q((int64_t)AV_TIME_BASE << *attempt, AV_TIME_BASE_Q, time_base);
    return ++*attempt > MAX_SEEK_RETRIES ? first : from - (step > 0 ? step : 1);
}

/* Back to the start of the file: a fresh demuxer and decoder are the one way every format supports. */
static int reopen(Input *in, const char *path, char *error, size_t size) {
    input_close(in);
    if (input_open(in, path, error, size) < 0) return -1;
    return open_decoder(in, in->video, &in->video_decoder, 1, error, size);
}

uint8_t *medley_movie_frame_rgb(const char *path, double seconds, int *width, int *height, double *time,
                                int *rotation, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    Input in;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc(), *last = av_frame_alloc();
    uint8_t *rgb = NULL;
    if (!packet || !frame || !last) { snprintf(error, size, "out of memory"); memset(&in, 0, sizeof in); goto done; }
    if (input_open(&in, path, error, size) < 0) goto done;
    /* One thread: posters are taken from many files at once, one file per worker. */
    if (open_decoder(&in, in.video, &in.video_decoder, 1, error, size) < 0) goto done;
    if (!(seconds >= 0) || !isfinite(seconds)) { snprintf(error, size, "the time must be a number of seconds ≥ 0"); goto done; }
    /* Beyond 31 years no movie lasts, and seconds · AV_TIME_BASE must fit an int64_t even when the
     * container does not say how long it is. */
    if (seconds > 1e9) { snprintf(error, size, "%g s is past the end of any movie", seconds); goto done; }
    double duration = in.format->duration > 0 ? in.format->duration / (double)AV_TIME_BASE : 0;
    if (duration > 0 && seconds >= duration) {
        snprintf(error, size, "%.3f s is past the end (the movie lasts %.3f s)", seconds, duration);
        goto done;
    }

    AVStream *stream = in.format->streams[in.video];
    int64_t start = container_start(in.format);
    /* FFmpeg's CLI: -ss t means container start + t, rounded to the stream's time base. */
    int64_t target = av_rescale_q(start + llround(seconds * AV_TIME_BASE), AV_TIME_BASE_Q, stream->time_base);
    int64_t first = stream->start_time != AV_NOPTS_VALUE
        ? stream->start_time : av_rescale_q(start, AV_TIME_BASE_Q, stream->time_base);
    int64_t seek_to = target;
    int attempt = 0, errors = 0, found = 0, damaged = 0;
    int64_t last_pts = AV_NOPTS_VALUE, last_end = AV_NOPTS_VALUE;
    while (!found) {
        /* Seek to the keyframe at or before seek_to; at or before the stream's first timestamp,
         * read from the start instead (reopening after an earlier attempt moved the demuxer). */
        int sought = 0;
        if (seek_to > first) {
            avcodec_flush_buffers(in.video_decoder);
            sought = av_seek_frame(in.format, in.video, seek_to, AVSEEK_FLAG_BACKWARD) >= 0;
            if (!sought && reopen(&in, path, error, size) < 0) goto done;
        } else if (attempt > 0 && reopen(&in, path, error, size) < 0) {
            goto done;
        }
        stream = in.format->streams[in.video];

        int flushing = 0, decoded = 0, overshot = 0, errors_before = errors;
        last_pts = last_end = AV_NOPTS_VALUE;
        damaged = 0;
        av_frame_unref(last);
        for (;;) {
            int r = next_video_frame(&in, packet, frame, &flushing, &errors, error, size);
            if (r < 0) goto done;
            if (r == 0) break;
            /* Damage spreads to every frame predicted from the damaged one, up to the next clean
             * keyframe; the decoder flags only the frame it concealed errors in. */
            if (frame->key_frame) damaged = 0;
            if (is_damaged(frame) || errors > errors_before) damaged = 1;
            errors_before = errors;
            int64_t pts = frame->best_effort_timestamp;
            if (pts == AV_NOPTS_VALUE) pts = last_end != AV_NOPTS_VALUE ? last_end : first;
            if (decoded++ == 0 && pts > target && sought) {
                /* The keyframe the demuxer chose lies after the wanted time (MPEG-TS bisects the
                 * file on timestamps and can do that). */
                seek_to = earlier(seek_to < pts ? seek_to : pts, &attempt, first, stream->time_base);
                overshot = 1;
                av_frame_unref(frame);
                break;
            }
            av_frame_unref(last);
            av_frame_move_ref(last, frame);
            last_pts = pts;
            last_end = pts + frame_duration(last, stream);
            if (pts >= target) { found = 1; break; }
        }
        if (!overshot && sought && decoded == 0 && attempt <= MAX_SEEK_RETRIES) {
            /* Nothing decodes after the seek point (a seek past the last keyframe, or data cut
             * away): go further back too. */
            seek_to = earlier(seek_to, &attempt, first, stream->time_base);
            overshot = 1;
        }
        if (overshot) continue;
        /* The stream ended before `target`: the last frame counts if it is still on screen then,
         * allowing half a frame of slack for rounded durations. */
        if (!found && last_pts != AV_NOPTS_VALUE && target < last_end + (last_end - last_pts) / 2) found = 1;
        if (found) {
            /* A B-frame is shown before the frames it is predicted from: look at the decoder's
             * reorder window past the found frame too, stopping at a keyframe. */
            for (int ahead = 0; !damaged && !flushing && ahead <= in.video_decoder->has_b_frames; ahead++) {
                int r = next_video_frame(&in, packet, frame, &flushing, &errors, error, size);
                if (r <= 0 || frame->key_frame) break;
                if (is_damaged(frame) || errors > errors_before) damaged = 1;
                av_frame_unref(frame);
            }
            if (damaged) {
                snprintf(error, size, "the frame at %.3f s is corrupt: the decoder found damaged data in it or in a "
                         "frame it is predicted from (since the keyframe before it)",
                         last_pts * av_q2d(stream->time_base) - start / (double)AV_TIME_BASE);
                goto done;
            }
            break;
        }
        if (last_pts == AV_NOPTS_VALUE) snprintf(error, size, "no video frame could be decoded");
        else snprintf(error, size, "the video ends at %.3f s, before %.3f s (the file may be truncated)",
                      last_end * av_q2d(stream->time_base) - start / (double)AV_TIME_BASE, seconds);
        goto done;
    }
    *width = last->width;
    *height = last->height;
    *time = last_pts * av_q2d(stream->time_base) - start / (double)AV_TIME_BASE;
    *rotation = displayed_rotation(stream, NULL);
    rgb = frame_to_rgb(last, error, size);
done:
    av_frame_free(&frame);
    av_frame_free(&last);
    av_packet_free(&packet);
    input_close(&in);
    return rgb;
}

/* ---- transcode ---- */

typedef struct Transcoder {
    Input in;
    const MedleyTranscodeSettings *settings;
    MedleyTranscodeReport *report;
    AVFormatContext *out;
    AVCodecContext *video_encoder, *audio_encoder;
    AVStream *video_out, *audio_out;
    struct SwsContext *sws;
    SwrContext *swr;
    AVAudioFifo *fifo;
    AVFrame *decoded, *picture, *sound;
    AVPacket *packet, *encoded;
    uint8_t **converted;       /* swr output planes */
    int converted_capacity;    /* samples per plane */
    int64_t origin_video;      /* the input video timestamp that becomes 0 */
    int64_t last_video_pts;
    int64_t next_audio_pts;    /* in samples */
    int audio_started;
    int sound_channels, sound_format, sound_rate; /* the decoded sound's shape the converter was set up for */
} Transcoder;

static int write_packets(Transcoder *t, AVCodecContext *encoder, AVStream *stream, char *error, size_t size) {
    for (;;) {
        int r = avcodec_receive_packet(encoder, t->encoded);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) { set_error(error, size, "encoding failed", r); return -1; }
        av_packet_rescale_ts(t->encoded, encoder->time_base, stream->time_base);
        t->encoded->stream_index = stream->index;
        r = av_interleaved_write_frame(t->out, t->encoded);
        if (r < 0) { set_error(error, size, "cannot write", r); return -1; }
    }
}

static int open_video_encoder(Transcoder *t, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    const AVStream *source = t->in.format->streams[t->in.video];
    const AVCodecContext *decoder = t->in.video_decoder;
    const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) { snprintf(error, size, "this FFmpeg has no libx264 encoder"); return -1; }
    AVCodecContext *e = t->video_encoder = avcodec_alloc_context3(codec);
    t->video_out = avformat_new_stream(t->out, NULL);
    if (!e || !t->video_out) { snprintf(error, size, "out of memory"); return -1; }
    e->width = s->width;
    e->height = s->height;
    e->pix_fmt = AV_PIX_FMT_YUV420P;
    e->sample_aspect_ratio = (AVRational){s->sar_num > 0 ? s->sar_num : 1, s->sar_den > 0 ? s->sar_den : 1};
    e->time_base = source->time_base;
    AVRational rate = source->avg_frame_rate.num > 0 ? source->avg_frame_rate : source->r_frame_rate;
    if (rate.num > 0 && rate.den > 0) e->framerate = rate;
    e->color_range = AVCOL_RANGE_MPEG;
    e->colorspace = decoder->colorspace;
    e->color_primaries = decoder->color_primaries;
    e->color_trc = decoder->color_trc;
    if (s->gop > 0) e->gop_size = s->gop;
    if (s->gop == 1) e->max_b_frames = 0;
    if (s->max_bit_rate > 0) {
        e->rc_max_rate = s->max_bit_rate;
        e->rc_buffer_size = (int)(s->buffer_bits > 0 ? s->buffer_bits : s->max_bit_rate);
    }
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    e->thread_count = 0;
    AVDictionary *options = NULL;
    char crf[16];
    snprintf(crf, sizeof crf, "%d", s->crf);
    av_dict_set(&options, "crf", crf, 0);
    av_dict_set(&options, "preset", s->x264_preset ? s->x264_preset : "medium", 0);
    av_dict_set(&options, "profile", "high", 0);
    int r = avcodec_open2(e, codec, &options);
    av_dict_free(&options);
    if (r < 0) { set_error(error, size, "cannot start the H.264 encoder", r); return -1; }
    r = avcodec_parameters_from_context(t->video_out->codecpar, e);
    if (r < 0) { set_error(error, size, "cannot describe the video stream", r); return -1; }
    t->video_out->time_base = e->time_base;
    t->video_out->sample_aspect_ratio = e->sample_aspect_ratio;
    if (rate.num > 0 && rate.den > 0) t->video_out->avg_frame_rate = rate;
    const AVDictionaryEntry *language = av_dict_get(source->metadata, "language", NULL, 0);
    if (language) av_dict_set(&t->video_out->metadata, "language", language->value, 0);

    /* The display matrix as it was (a hand-written one may also mirror), else the rotate tag's. */
    const int32_t *matrix = NULL;
    displayed_rotation(source, &matrix);
    int32_t built[9];
    if (!matrix && s->rotation) {
        av_display_rotation_set(built, -s->rotation);
        matrix = built;
    }
    if (matrix) {
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
        AVPacketSideData *sd = av_packet_side_data_new(&t->video_out->codecpar->coded_side_data,
                                                       &t->video_out->codecpar->nb_coded_side_data,
                                                       AV_PKT_DATA_DISPLAYMATRIX, sizeof built, 0);
        uint8_t *copy = sd ? sd->data : NULL;
#else
        uint8_t *copy = av_stream_new_side_data(t->video_out, AV_PKT_DATA_DISPLAYMATRIX, sizeof built);
#endif
        if (!copy) { snprintf(error, size, "out of memory"); return -1; }
        memcpy(copy, matrix, sizeof built);
    }

    t->picture = av_frame_alloc();
    if (!t->picture) { snprintf(error, size, "out of memory"); return -1; }
    t->picture->format = e->pix_fmt;
    t->picture->width = e->width;
    t->picture->height = e->height;
    r = av_frame_get_buffer(t->picture, 0);
    if (r < 0) { set_error(error, size, "cannot allocate a picture", r); return -1; }
    return 0;
}

static int open_audio_encoder(Transcoder *t, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    const AVCodec *codec = avcodec_find_encoder_by_name("aac");
    if (!codec) { snprintf(error, size, "this FFmpeg has no aac encoder"); return -1; }
    AVCodecContext *e = t->audio_encoder = avcodec_alloc_context3(codec);
    t->audio_out = avformat_new_stream(t->out, NULL);
    if (!e || !t->audio_out) { snprintf(error, size, "out of memory"); return -1; }
    e->sample_fmt = AV_SAMPLE_FMT_FLTP;
    e->sample_rate = s->audio_sample_rate;
    av_channel_layout_default(&e->ch_layout, s->audio_channels);
    e->bit_rate = s->audio_bit_rate;
    e->time_base = (AVRational){1, s->audio_sample_rate};
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int r = avcodec_open2(e, codec, NULL);
    if (r < 0) { set_error(error, size, "cannot start the AAC encoder", r); return -1; }
    r = avcodec_parameters_from_context(t->audio_out->codecpar, e);
    if (r < 0) { set_error(error, size, "cannot describe the audio stream", r); return -1; }
    t->audio_out->time_base = e->time_base;
    const AVDictionaryEntry *language = av_dict_get(t->in.format->streams[t->in.audio]->metadata, "language", NULL, 0);
    if (language) av_dict_set(&t->audio_out->metadata, "language", language->value, 0);
    t->fifo = av_audio_fifo_alloc(e->sample_fmt, s->audio_channels, 4 * e->frame_size);
    t->sound = av_frame_alloc();
    if (!t->fifo || !t->sound) { snprintf(error, size, "out of memory"); return -1; }
    t->sound->format = e->sample_fmt;
    r = av_channel_layout_copy(&t->sound->ch_layout, &e->ch_layout);
    if (r < 0) { set_error(error, size, "cannot describe the sound's channels", r); return -1; }
    t->sound->sample_rate = e->sample_rate;
    t->sound->nb_samples = e->frame_size;
    r = av_frame_get_buffer(t->sound, 0);
    if (r < 0) { set_error(error, size, "cannot allocate a sound frame", r); return -1; }
    return 0;
}

/* Scales one decoded picture (after the crop) into the encoder's size and encodes it; NULL flushes. */
static int encode_picture(Transcoder *t, AVFrame *frame, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    if (!frame) {
        int r = avcodec_send_frame(t->video_encoder, NULL);
        if (r < 0) { set_error(error, size, "encoding failed", r); return -1; }
        return write_packets(t, t->video_encoder, t->video_out, error, size);
    }
    const AVCodecParameters *par = t->in.format->streams[t->in.video]->codecpar;
    int64_t pts = frame->best_effort_timestamp;
    if (s->crop_width > 0 && s->crop_height > 0 && frame->width == par->width && frame->height == par->height &&
        (s->crop_width != frame->width || s->crop_height != frame->height)) {
        frame->crop_left = s->crop_x;
        frame->crop_top = s->crop_y;
        frame->crop_right = frame->width - s->crop_x - s->crop_width;
        frame->crop_bottom = frame->height - s->crop_y - s->crop_height;
        int r = av_frame_apply_cropping(frame, AV_FRAME_CROP_UNALIGNED);
        if (r < 0) { set_error(error, size, "cannot crop the picture", r); return -1; }
    }
    t->sws = sws_getCachedContext(t->sws, frame->width, frame->height, frame->format, s->width, s->height,
                                  AV_PIX_FMT_YUV420P, SWS_BICUBIC, NULL, NULL, NULL);
    if (!t->sws) { snprintf(error, size, "cannot scale %s pictures", av_get_pix_fmt_name(frame->format)); return -1; }
    int *inverse, *table, source_full, destination_full, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(t->sws, &inverse, &source_full, &table, &destination_full, &brightness, &contrast,
                                 &saturation) >= 0) {
        if (frame->colorspace != AVCOL_SPC_UNSPECIFIED) inverse = table = (int *)sws_getCoefficients(frame->colorspace);
        if (frame->color_range != AVCOL_RANGE_UNSPECIFIED) source_full = frame->color_range == AVCOL_RANGE_JPEG;
        sws_setColorspaceDetails(t->sws, inverse, source_full, table, 0, brightness, contrast, saturation);
    }
    int r = av_frame_make_writable(t->picture);
    if (r < 0) { set_error(error, size, "cannot reuse a picture", r); return -1; }
    sws_scale(t->sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, t->picture->data,
              t->picture->linesize);
    const AVStream *source = t->in.format->streams[t->in.video];
    if (pts == AV_NOPTS_VALUE) pts = t->last_video_pts + frame_duration(frame, source) + t->origin_video;
    pts -= t->origin_video;
    if (pts <= t->last_video_pts) pts = t->last_video_pts + 1;
    t->last_video_pts = pts;
    t->picture->pts = pts;
    r = avcodec_send_frame(t->video_encoder, t->picture);
    if (r < 0) { set_error(error, size, "encoding failed", r); return -1; }
    t->report->video_frames++;
    return write_packets(t, t->video_encoder, t->video_out, error, size);
}

/* Encodes whole encoder frames from the FIFO; `all` also sends the short remainder. */
static int encode_fifo(Transcoder *t, int all, char *error, size_t size) {
    int frame_size = t->audio_encoder->frame_size;
    while (av_audio_fifo_size(t->fifo) >= frame_size || (all && av_audio_fifo_size(t->fifo) > 0)) {
        int r = av_frame_make_writable(t->sound);
        if (r < 0) { set_error(error, size, "cannot reuse a sound frame", r); return -1; }
        int n = av_audio_fifo_read(t->fifo, (void **)t->sound->data, frame_size);
        if (n <= 0) { snprintf(error, size, "cannot buffer sound"); return -1; }
        t->sound->nb_samples = n;
        t->sound->pts = t->next_audio_pts;
        t->next_audio_pts += n;
        r = avcodec_send_frame(t->audio_encoder, t->sound);
        if (r < 0) { set_error(error, size, "encoding failed", r); return -1; }
        t->report->audio_samples += n;
        if (write_packets(t, t->audio_encoder, t->audio_out, error, size) < 0) return -1;
    }
    return 0;
}

/* Converts one decoded sound frame (NULL: drains the resampler) into the FIFO and encodes. */
static int encode_sound(Transcoder *t, AVFrame *frame, char *error, size_t size) {
    const AVStream *source = t->in.format->streams[t->in.audio];
    int rate = t->audio_encoder->sample_rate;
    /* The converter is set up for the first frame's layout, format and rate; a frame that differs (a stream
     * that changes mid-way) would have it read planes the frame does not have. */
    if (frame && t->swr && (frame->ch_layout.nb_channels != t->sound_channels || frame->format != t->sound_format ||
                            frame->sample_rate != t->sound_rate)) {
        snprintf(error, size, "the sound changes its layout mid-way (%d channels at %d Hz, then %d at %d Hz)",
                 t->sound_channels, t->sound_rate, frame->ch_layout.nb_channels, frame->sample_rate);
        return -1;
    }
    if (frame && !t->swr) {
        t->sound_channels = frame->ch_layout.nb_channels;
        t->sound_format = frame->format;
        t->sound_rate = frame->sample_rate;
        AVChannelLayout layout;
        if (frame->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame->ch_layout.nb_channels <= 0)
            av_channel_layout_default(&layout, frame->ch_layout.nb_channels > 0 ? frame->ch_layout.nb_channels : 2);
        else
            av_channel_layout_copy(&layout, &frame->ch_layout);
        int r = swr_alloc_set_opts2(&t->swr, &t->audio_encoder->ch_layout, t->audio_encoder->sample_fmt, rate,
                                    &layout, frame->format, frame->sample_rate, 0, NULL);
        av_channel_layout_uninit(&layout);
        if (r >= 0) r = swr_init(t->swr);
        if (r < 0) { set_error(error, size, "cannot convert the sound", r); return -1; }
    }
    if (!t->swr) return 0;
    if (frame && !t->audio_started) {
        t->audio_started = 1;
        int64_t pts = frame->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            int64_t from_start = av_rescale_q(pts, source->time_base, AV_TIME_BASE_Q) - container_start(t->in.format);
            int64_t samples = av_rescale(from_start, rate, AV_TIME_BASE);
            t->next_audio_pts = samples > 0 ? samples : 0;
        }
    }
    int wanted = swr_get_out_samples(t->swr, frame ? frame->nb_samples : 0);
    if (wanted < 0) { snprintf(error, size, "cannot convert the sound"); return -1; }
    if (wanted > t->converted_capacity) {
        if (t->converted) av_freep(&t->converted[0]);
        av_freep(&t->converted);
        int r = av_samples_alloc_array_and_samples(&t->converted, NULL, t->audio_encoder->ch_layout.nb_channels,
                                                   wanted, t->audio_encoder->sample_fmt, 0);
        if (r < 0) { t->converted_capacity = 0; set_error(error, size, "cannot allocate sound", r); return -1; }
        t->converted_capacity = wanted;
    }
    int n = swr_convert(t->swr, t->converted, t->converted_capacity,
                        frame ? (const uint8_t **)frame->extended_data : NULL, frame ? frame->nb_samples : 0);
    if (n < 0) { set_error(error, size, "cannot convert the sound", n); return -1; }
    if (n > 0 && av_audio_fifo_write(t->fifo, (void **)t->converted, n) < n) {
        snprintf(error, size, "cannot buffer sound");
        return -1;
    }
    return encode_fifo(t, 0, error, size);
}

/* Sends a packet (NULL: flush) to a decoder and handles every frame it gives back. */
static int decode(Transcoder *t, AVCodecContext *decoder, AVPacket *packet, int is_video, char *error, size_t size) {
    int r = avcodec_send_packet(decoder, packet);
    if (r < 0 && r != AVERROR(EAGAIN) && r != AVERROR_EOF) {
        if (is_video) t->report->damaged_frames++;  /* a rejected picture is a damaged one too */
        if (++t->report->decode_errors > MAX_DECODE_ERRORS) { set_error(error, size, "too many undecodable packets", r); return -1; }
        return 0;
    }
    for (;;) {
        r = avcodec_receive_frame(decoder, t->decoded);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) {
            if (++t->report->decode_errors > MAX_DECODE_ERRORS) { set_error(error, size, "too many undecodable frames", r); return -1; }
            return 0;
        }
        const AVStream *stream = t->in.format->streams[is_video ? t->in.video : t->in.audio];
        int64_t pts = t->decoded->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            double end = pts * av_q2d(stream->time_base) - container_start(t->in.format) / (double)AV_TIME_BASE;
            if (is_video) {
                end += frame_duration(t->decoded, stream) * av_q2d(stream->time_base);
                if (end > t->report->video_end) t->report->video_end = end;
            } else if (t->decoded->sample_rate > 0) {
                end += t->decoded->nb_samples / (double)t->decoded->sample_rate;
                if (end > t->report->audio_end) t->report->audio_end = end;
            }
        }
        if (is_video && is_damaged(t->decoded)) t->report->damaged_frames++;
        r = is_video ? encode_picture(t, t->decoded, error, size) : encode_sound(t, t->decoded, error, size);
        av_frame_unref(t->decoded);
        if (r < 0) return -1;
    }
}

static void transcoder_free(Transcoder *t) {
    sws_freeContext(t->sws);
    swr_free(&t->swr);
    if (t->fifo) av_audio_fifo_free(t->fifo);
    if (t->converted) av_freep(&t->converted[0]);
    av_freep(&t->converted);
    av_frame_free(&t->decoded);
    av_frame_free(&t->picture);
    av_frame_free(&t->sound);
    av_packet_free(&t->packet);
    av_packet_free(&t->encoded);
    avcodec_free_context(&t->video_encoder);
    avcodec_free_context(&t->audio_encoder);
    if (t->out) {
        if (t->out->pb) avio_closep(&t->out->pb);
        avformat_free_context(t->out);
    }
    input_close(&t->in);
}

/* Container tags that describe the file's structure, not its content: the muxer writes its own. */
static int is_structural_tag(const char *key) {
    static const char *const names[] = {"major_brand", "minor_version", "compatible_brands", "encoder", "duration"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (av_strcasecmp(key, names[i]) == 0) return 1;
    return 0;
}

/* Tags the MP4 muxer writes verbatim as iTunes-style atoms (©nam, ©ART, …) or, creation_time,
 * in the movie header. */
static int is_mp4_atom_tag(const char *key) {
    static const char *const names[] = {"title", "artist", "album_artist", "album", "composer", "comment", "genre",
                                        "copyright", "grouping", "lyrics", "description", "synopsis", "show",
                                        "episode_id", "network", "keywords", "date", "creation_time"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(key, names[i]) == 0) return 1;
    return 0;
}

int medley_movie_transcode(const char *input, const char *output, const MedleyTranscodeSettings *settings,
                           MedleyTranscodeReport *report, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    Transcoder t = {0};
    t.settings = settings;
    t.report = report;
    memset(report, 0, sizeof *report);
    int result = -1;
    if (settings->width <= 0 || settings->height <= 0 || settings->width % 2 || settings->height % 2) {
        snprintf(error, size, "the output size %d×%d is not a positive even size", settings->width, settings->height);
        memset(&t.in, 0, sizeof t.in);
        goto done;
    }
    if (input_open(&t.in, input, error, size) < 0) goto done;
    /* One decoding thread, as for poster frames: with frame threads the H.264 decoder's error
     * concealment (and so its damaged-frame flags) depends on timing, and a damaged source could
     * re-encode without a word. x264's encoding, not decoding, is what takes the time here. */
    if (open_decoder(&t.in, t.in.video, &t.in.video_decoder, 1, error, size) < 0) goto done;
    if (t.in.audio >= 0 && settings->audio_channels > 0 &&
        open_decoder(&t.in, t.in.audio, &t.in.audio_decoder, 1, error, size) < 0) {
        /* A sound track FFmpeg cannot decode is dropped rather than failing the picture. */
        avcodec_free_context(&t.in.audio_decoder);
        t.in.audio = -1;
    }
    if (settings->audio_channels <= 0) t.in.audio = -1;

    int r = avformat_alloc_output_context2(&t.out, NULL, "mp4", output);
    if (r < 0 || !t.out) { set_error(error, size, "cannot create the MP4 container", r); goto done; }
    const AVDictionaryEntry *tag = NULL;
    int keyed = 0;
    while ((tag = av_dict_get(t.in.format->metadata, "", tag, AV_DICT_IGNORE_SUFFIX))) {
        if (is_structural_tag(tag->key)) continue;
        av_dict_set(&t.out->metadata, tag->key, tag->value, 0);
        if (!is_mp4_atom_tag(tag->key)) keyed = 1;
    }
    if (open_video_encoder(&t, error, size) < 0) goto done;
    if (t.in.audio >= 0 && open_audio_encoder(&t, error, size) < 0) goto done;
    t.origin_video = av_rescale_q(container_start(t.in.format), AV_TIME_BASE_Q,
                                  t.in.format->streams[t.in.video]->time_base);
    t.last_video_pts = -1;
    t.decoded = av_frame_alloc();
    t.packet = av_packet_alloc();
    t.encoded = av_packet_alloc();
    if (!t.decoded || !t.packet || !t.encoded) { snprintf(error, size, "out of memory"); goto done; }

    r = avio_open(&t.out->pb, output, AVIO_FLAG_WRITE);
    if (r < 0) { set_error(error, size, "cannot create the file", r); goto done; }
    AVDictionary *options = NULL;
    /* Tags the MP4 atoms cannot hold as they are (make, model, com.apple.quicktime.*, a location
     * the `loci` atom would reparse) need the QuickTime keys list, which holds every tag verbatim. */
    av_dict_set(&options, "movflags", keyed ? "+faststart+use_metadata_tags" : "+faststart", 0);
    r = avformat_write_header(t.out, &options);
    av_dict_free(&options);
    if (r < 0) { set_error(error, size, "cannot write the header", r); goto done; }

    int retries = 0;
    for (;;) {
        r = av_read_frame(t.in.format, t.packet);
        if (r == AVERROR(EAGAIN)) {
            if (++retries > MAX_READ_RETRIES) { snprintf(error, size, "the file stopped delivering data"); goto done; }
            continue;
        }
        if (r < 0) break; /* the end, or where a truncated file stops */
        int status = 0;
        if (t.packet->stream_index == t.in.video) status = decode(&t, t.in.video_decoder, t.packet, 1, error, size);
        else if (t.packet->stream_index == t.in.audio) status = decode(&t, t.in.audio_decoder, t.packet, 0, error, size);
        av_packet_unref(t.packet);
        if (status < 0) goto done;
    }
    if (decode(&t, t.in.video_decoder, NULL, 1, error, size) < 0) goto done;
    if (report->video_frames == 0) { snprintf(error, size, "no video frame could be decoded"); goto done; }
    if (encode_picture(&t, NULL, error, size) < 0) goto done;
    if (t.in.audio >= 0) {
        if (decode(&t, t.in.audio_decoder, NULL, 0, error, size) < 0) goto done;
        if (t.swr && encode_sound(&t, NULL, error, size) < 0) goto done;
        if (encode_fifo(&t, 1, error, size) < 0) goto done;
        r = avcodec_send_frame(t.audio_encoder, NULL);
        if (r < 0) { set_error(error, size, "encoding failed", r); goto done; }
        if (write_packets(&t, t.audio_encoder, t.audio_out, error, size) < 0) goto done;
    }
    r = av_write_trailer(t.out);
    if (r < 0) { set_error(error, size, "cannot finish the file", r); goto done; }
    r = avio_closep(&t.out->pb);
    if (r < 0) { set_error(error, size, "cannot finish the file", r); goto done; }
    result = 0;
done:
    transcoder_free(&t);
    return result;
}
