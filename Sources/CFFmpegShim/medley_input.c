/* Opening a file for reading (the one avformat_open_input + avformat_find_stream_info of the shim:
 * the audio decoder, both probes and the movie's input call it), the movie's choice of streams and
 * their decoders, and what a movie's streams and frames say about time, damage and rotation. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/display.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- opening ---- */

int medley_input_open(AVFormatContext **format, const char *path, const char *cannot_open, char *error, size_t size) {
    int r = avformat_open_input(format, path, NULL, NULL);
    if (r < 0) {
        if (error) medley_ffmpeg_set_error(error, size, cannot_open, r);
        return r;
    }
    r = avformat_find_stream_info(*format, NULL);
    if (r < 0) {
        avformat_close_input(format);
        if (error) medley_ffmpeg_set_error(error, size, "cannot read the streams", r);
        return r;
    }
    return 0;
}

int medley_input_read(AVFormatContext *format, AVPacket *packet, int *retries, char *error, size_t size) {
    for (;;) {
        int r = av_read_frame(format, packet);
        if (r >= 0) return 1;
        if (r != AVERROR(EAGAIN)) return 0;
        if (++*retries > MAX_READ_RETRIES) { snprintf(error, size, "the file stopped delivering data"); return -1; }
    }
}

int medley_input_pick_video(const AVFormatContext *format) {
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

/* ---- a movie's input ---- */

void medley_movie_input_close(MedleyMovieInput *in) {
    avcodec_free_context(&in->video_decoder);
    avcodec_free_context(&in->audio_decoder);
    avformat_close_input(&in->format);
}

int medley_movie_input_open(MedleyMovieInput *in, const char *path, char *error, size_t size) {
    memset(in, 0, sizeof *in);
    in->video = in->audio = -1;
    if (medley_input_open(&in->format, path, "cannot read the container", error, size) < 0) return -1;
    in->video = medley_input_pick_video(in->format);
    if (in->video < 0) { snprintf(error, size, "no video stream"); return -1; }
    in->audio = av_find_best_stream(in->format, AVMEDIA_TYPE_AUDIO, -1, in->video, NULL, 0);
    if (in->audio < 0) in->audio = -1;
    const AVCodecParameters *v = in->format->streams[in->video]->codecpar;
    if (v->width <= 0 || v->height <= 0) { snprintf(error, size, "the video stream has no picture size"); return -1; }
    return 0;
}

int medley_movie_open_decoder(MedleyMovieInput *in, int stream, AVCodecContext **decoder, int threads, char *error,
                              size_t size) {
    const AVCodecParameters *par = in->format->streams[stream]->codecpar;
    const AVCodec *codec = avcodec_find_decoder(par->codec_id);
    if (!codec) {
        snprintf(error, size, "this FFmpeg cannot decode %s", avcodec_get_name(par->codec_id));
        return -1;
    }
    *decoder = avcodec_alloc_context3(codec);
    if (!*decoder) { snprintf(error, size, "out of memory"); return -1; }
    int r = avcodec_parameters_to_context(*decoder, par);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot read the stream parameters", r); return -1; }
    (*decoder)->pkt_timebase = in->format->streams[stream]->time_base;
    (*decoder)->thread_count = threads;
    r = avcodec_open2(*decoder, codec, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot start the decoder", r); return -1; }
    return 0;
}

/* ---- what streams and frames say ---- */

int64_t medley_container_start(const AVFormatContext *format) {
    return format->start_time == AV_NOPTS_VALUE ? 0 : format->start_time;
}

int64_t medley_frame_duration(const AVFrame *frame, const AVStream *stream) {
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

int medley_frame_is_damaged(const AVFrame *frame) {
    return (frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags;
}

int medley_displayed_rotation(const AVStream *stream, const int32_t **matrix_out) {
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
