/* The audio decoder (medley_decoder_*, medley_ffmpeg.h): the first audio stream of any file FFmpeg
 * opens, as interleaved float frames, damaged packets skipped and counted. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/intreadwrite.h>
#include <libavutil/log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct MedleyDecoder {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int channels;
    int offset;       /* frames of `frame` already handed out */
    int have_frame;
    int finished;
    int flushing;
    int damaged;      /* packets or frames the decoder rejected and that were skipped */
    /* Ogg Vorbis: the stream's length from its granule positions (as libvorbisfile decodes it), and
     * the frames handed out so far (after the frames before zero, which are dropped). FFmpeg 5.1's own end trimming of Ogg Vorbis disagrees with the
     * last granule position on real files (it cuts 128 frames of audio from some, keeps the padding
     * of others), so the decoder skips manually: start skips are applied, the end is cut here. */
    int64_t limit;
    int64_t produced;
};

MedleyDecoder *medley_decoder_open(const char *path, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    MedleyDecoder *d = calloc(1, sizeof *d);
    if (!d) { snprintf(error, size, "out of memory"); return NULL; }
    int r = medley_input_open(&d->format, path, "cannot open", error, size);
    if (r < 0) goto fail;
    const AVCodec *codec = NULL;
    d->stream = av_find_best_stream(d->format, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (d->stream < 0 || !codec) { snprintf(error, size, "no audio stream FFmpeg can decode"); goto fail; }
    d->codec = avcodec_alloc_context3(codec);
    if (!d->codec) { snprintf(error, size, "out of memory"); goto fail; }
    r = avcodec_parameters_to_context(d->codec, d->format->streams[d->stream]->codecpar);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot read the stream parameters", r); goto fail; }
    AVStream *stream = d->format->streams[d->stream];
    if (codec->id == AV_CODEC_ID_VORBIS && strcmp(d->format->iformat->name, "ogg") == 0 && stream->duration > 0
        && d->codec->sample_rate > 0) {
        d->limit = av_rescale_q(stream->duration, stream->time_base, (AVRational){1, d->codec->sample_rate});
        d->codec->flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL;
    }
    r = avcodec_open2(d->codec, codec, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot start the decoder", r); goto fail; }
    d->channels = d->codec->ch_layout.nb_channels;
    d->packet = av_packet_alloc();
    d->frame = av_frame_alloc();
    if (!d->packet || !d->frame || d->channels <= 0) { snprintf(error, size, "no usable audio"); goto fail; }
    return d;
fail:
    medley_decoder_free(d);
    return NULL;
}

void medley_decoder_info(const MedleyDecoder *d, int *sample_rate, int *channels, int64_t *frames, const char **codec_name) {
    *sample_rate = d->codec->sample_rate;
    *channels = d->channels;
    AVStream *s = d->format->streams[d->stream];
    int64_t count = 0;
    if (s->duration > 0) count = av_rescale_q(s->duration, s->time_base, (AVRational){1, d->codec->sample_rate});
    else if (d->format->duration > 0) count = av_rescale(d->format->duration, d->codec->sample_rate, AV_TIME_BASE);
    /* Ogg Opus: FFmpeg's stream duration counts the pre-skip, which is not played (RFC 7845 §4.2;
     * opusinfo and mutagen give the length without it). */
    if (s->duration > 0 && d->codec->codec_id == AV_CODEC_ID_OPUS && strcmp(d->format->iformat->name, "ogg") == 0
        && s->codecpar->initial_padding > 0 && count > s->codecpar->initial_padding)
        count -= s->codecpar->initial_padding;
    *frames = count;
    /* The codec's name as ffprobe prints it ("mp3", not the decoder's "mp3float"). */
    *codec_name = avcodec_get_name(d->codec->codec_id);
}

void medley_decoder_depth(const MedleyDecoder *d, int *bits, int *is_float) {
    const AVCodecDescriptor *descriptor = avcodec_descriptor_get(d->codec->codec_id);
    *bits = 0;
    *is_float = 0;
    if (!descriptor || !(descriptor->props & AV_CODEC_PROP_LOSSLESS)) return;
    enum AVSampleFormat packed = av_get_packed_sample_fmt(d->codec->sample_fmt);
    *is_float = packed == AV_SAMPLE_FMT_FLT || packed == AV_SAMPLE_FMT_DBL;
    int raw = d->codec->bits_per_raw_sample;
    *bits = raw > 0 && !*is_float ? raw : av_get_bytes_per_sample(d->codec->sample_fmt) * 8;
}

int medley_decoder_count_is_stated(const MedleyDecoder *d) {
    return d->format->streams[d->stream]->duration > 0 && d->format->duration_estimation_method != AVFMT_DURATION_FROM_BITRATE;
}

const char *medley_decoder_container(const MedleyDecoder *d) { return d->format->iformat->name; }

int medley_decoder_damaged(const MedleyDecoder *d) { return d->damaged; }

/* Copies `take` frames of `frame`, from frame `offset` on, into `out` as interleaved floats of
 * `channels` channels (full scale ±1). The sample format is looked at once per call, not per sample:
 * this loop is on every decoded sample's way. Scales are powers of two, so multiplying is exact. */
static void copy_samples(const AVFrame *frame, int offset, int take, int channels, float *out) {
    enum AVSampleFormat format = frame->format;
    int planar = av_sample_fmt_is_planar(format);
    enum AVSampleFormat packed = av_get_packed_sample_fmt(format);
    int step = planar ? 1 : channels;
    for (int c = 0; c < channels; c++) {
        const uint8_t *plane = planar ? frame->extended_data[c] : frame->extended_data[0];
        size_t first = planar ? (size_t)offset : (size_t)offset * channels + c;
        float *dst = out + c;
        switch (packed) {
        case AV_SAMPLE_FMT_FLT: {
            const float *src = (const float *)plane + first;
            for (int i = 0; i < take; i++) dst[(size_t)i * channels] = src[(size_t)i * step];
            break;
        }
        case AV_SAMPLE_FMT_DBL: {
            const double *src = (const double *)plane + first;
            for (int i = 0; i < take; i++) dst[(size_t)i * channels] = (float)src[(size_t)i * step];
            break;
        }
        case AV_SAMPLE_FMT_S16: {
            const int16_t *src = (const int16_t *)plane + first;
            for (int i = 0; i < take; i++) dst[(size_t)i * channels] = src[(size_t)i * step] * (1.0f / 32768.0f);
            break;
        }
        case AV_SAMPLE_FMT_S32: {
            const int32_t *src = (const int32_t *)plane + first;
            for (int i = 0; i < take; i++) dst[(size_t)i * channels] = (float)(src[(size_t)i * step] * (1.0 / 2147483648.0));
            break;
        }
        case AV_SAMPLE_FMT_U8: {
            const uint8_t *src = plane + first;
            for (int i = 0; i < take; i++) dst[(size_t)i * channels] = (src[(size_t)i * step] - 128) * (1.0f / 128.0f);
            break;
        }
        default:
            for (int i = 0; i < take; i++) dst[(size_t)i * channels] = 0;
        }
    }
}

/* Gets the next decoded frame into d->frame. Returns 1, 0 at the end, −1 on error. */
static int next_frame(MedleyDecoder *d, char *error, size_t size) {
    for (;;) {
        int r = avcodec_receive_frame(d->codec, d->frame);
        if (r == 0) return 1;
        if (r == AVERROR_EOF) return 0;
        /* A damaged frame is skipped and counted, as ffmpeg does, and decoding resyncs on the next. */
        if (r == AVERROR_INVALIDDATA) { d->damaged++; continue; }
        if (r != AVERROR(EAGAIN)) { medley_ffmpeg_set_error(error, size, "cannot decode", r); return -1; }
        if (d->flushing) return 0;
        r = av_read_frame(d->format, d->packet);
        if (r == AVERROR_EOF) {
            d->flushing = 1;
            avcodec_send_packet(d->codec, NULL);
            continue;
        }
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot read", r); return -1; }
        if (d->packet->stream_index == d->stream) {
            r = avcodec_send_packet(d->codec, d->packet);
            av_packet_unref(d->packet);
            if (r == AVERROR_INVALIDDATA) d->damaged++;
            else if (r < 0 && r != AVERROR(EAGAIN)) { medley_ffmpeg_set_error(error, size, "cannot decode", r); return -1; }
        } else {
            av_packet_unref(d->packet);
        }
    }
}

int medley_decoder_read(MedleyDecoder *d, float *samples, int max_frames, char *error, size_t size) {
    int done = 0;
    while (done < max_frames && !d->finished) {
        if (!d->have_frame) {
            int r = next_frame(d, error, size);
            if (r < 0) return -1;
            if (r == 0) { d->finished = 1; break; }
            /* A stream may change its layout mid-way; reading a frame with fewer channels (or planes) than
             * the stream began with would read past its buffers. */
            if (d->frame->ch_layout.nb_channels != d->channels) {
                snprintf(error, size, "the stream changes from %d to %d channels mid-way", d->channels,
                         d->frame->ch_layout.nb_channels);
                av_frame_unref(d->frame);
                return -1;
            }
            d->have_frame = 1;
            d->offset = 0;
            /* Skipping manually: the frames a start skip names are dropped; an end skip is not applied
             * (the limit cuts the stream at its last granule position instead). */
            AVFrameSideData *skip = av_frame_get_side_data(d->frame, AV_FRAME_DATA_SKIP_SAMPLES);
            if (d->limit > 0 && skip && skip->size >= 4) {
                uint32_t start = AV_RL32(skip->data);
                d->offset = start < (uint32_t)d->frame->nb_samples ? (int)start : d->frame->nb_samples;
            }
            /* A Vorbis stream whose first page's granule position is lower than the samples its packets
             * decode starts before zero (Vorbis I §A.2, a stream cut from a longer one): FFmpeg stamps
             * those frames with negative times and hands them out; libvorbisfile discards them. */
            if (d->limit > 0 && d->frame->pts != AV_NOPTS_VALUE && d->frame->pts < 0) {
                AVStream *s = d->format->streams[d->stream];
                int64_t before = av_rescale_q(-d->frame->pts, s->time_base, (AVRational){1, d->codec->sample_rate});
                if (before > d->offset) d->offset = before < d->frame->nb_samples ? (int)before : d->frame->nb_samples;
            }
        }
        int available = d->frame->nb_samples - d->offset;
        int take = max_frames - done < available ? max_frames - done : available;
        if (d->limit > 0 && take > d->limit - d->produced) take = (int)(d->limit - d->produced);
        if (take <= 0 && d->limit > 0 && d->produced >= d->limit) {
            d->finished = 1;
            av_frame_unref(d->frame);
            d->have_frame = 0;
            break;
        }
        if (take > 0) copy_samples(d->frame, d->offset, take, d->channels, samples + (size_t)done * d->channels);
        done += take;
        d->produced += take;
        d->offset += take;
        if (d->offset >= d->frame->nb_samples) { d->have_frame = 0; av_frame_unref(d->frame); }
    }
    return done;
}

void medley_decoder_free(MedleyDecoder *d) {
    if (!d) return;
    av_frame_free(&d->frame);
    av_packet_free(&d->packet);
    avcodec_free_context(&d->codec);
    avformat_close_input(&d->format);
    free(d);
}
