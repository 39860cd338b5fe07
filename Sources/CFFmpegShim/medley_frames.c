/* The frame at a time, as RGB (medley_movie_frame_rgb, medley_movie.h): seek to the keyframe
 * before it, decode forward, check the frames it is predicted from, convert as FFmpeg's CLI does. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seeks that land after the wanted time are retried this many times, further back each time,
 * before decoding from the very start. */
#define MAX_SEEK_RETRIES 4

/* Decodes the next frame of the video stream into `frame`. Returns 1, 0 at the end, −1 on error.
 * A read error counts as the end, as in FFmpeg's CLI (a truncated file is decoded up to where it
 * stops); rejected packets are skipped up to MAX_DECODE_ERRORS. */
int medley_movie_next_video_frame(MedleyMovieInput *in, AVPacket *packet, AVFrame *frame, int *flushing, int *errors,
                                  char *error, size_t size) {
    int retries = 0;
    for (;;) {
        int r = avcodec_receive_frame(in->video_decoder, frame);
        if (r == 0) return 1;
        if (r == AVERROR_EOF) return 0;
        if (r != AVERROR(EAGAIN)) {
            if (++*errors > MAX_DECODE_ERRORS) { medley_ffmpeg_set_error(error, size, "too many undecodable frames", r); return -1; }
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
                medley_ffmpeg_set_error(error, size, "too many undecodable packets", r);
                return -1;
            }
        }
        av_packet_unref(packet);
    }
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
static int reopen(MedleyMovieInput *in, const char *path, char *error, size_t size) {
    medley_movie_input_close(in);
    if (medley_movie_input_open(in, path, error, size) < 0) return -1;
    return medley_movie_open_decoder(in, in->video, &in->video_decoder, 1, error, size);
}

uint8_t *medley_movie_frame_rgb(const char *path, double seconds, int *width, int *height, double *time,
                                int *rotation, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    MedleyMovieInput in;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc(), *last = av_frame_alloc();
    uint8_t *rgb = NULL;
    if (!packet || !frame || !last) { snprintf(error, size, "out of memory"); memset(&in, 0, sizeof in); goto done; }
    if (medley_movie_input_open(&in, path, error, size) < 0) goto done;
    /* One thread: posters are taken from many files at once, one file per worker. */
    if (medley_movie_open_decoder(&in, in.video, &in.video_decoder, 1, error, size) < 0) goto done;
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
    int64_t start = medley_container_start(in.format);
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
            int r = medley_movie_next_video_frame(&in, packet, frame, &flushing, &errors, error, size);
            if (r < 0) goto done;
            if (r == 0) break;
            /* Damage spreads to every frame predicted from the damaged one, up to the next clean
             * keyframe; the decoder flags only the frame it concealed errors in. */
            if (frame->key_frame) damaged = 0;
            if (medley_frame_is_damaged(frame) || errors > errors_before) damaged = 1;
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
            last_end = pts + medley_frame_duration(last, stream);
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
                int r = medley_movie_next_video_frame(&in, packet, frame, &flushing, &errors, error, size);
                if (r <= 0 || frame->key_frame) break;
                if (medley_frame_is_damaged(frame) || errors > errors_before) damaged = 1;
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
    *rotation = medley_displayed_rotation(stream, NULL);
    MedleyPictureFilter *sdr = NULL;
    if (medley_picture_tonemap_in_place(&sdr, stream, in.video_decoder, last, error, size) == 0)
        rgb = frame_to_rgb(last, error, size);
    medley_picture_filter_free(&sdr);
done:
    av_frame_free(&frame);
    av_frame_free(&last);
    av_packet_free(&packet);
    medley_movie_input_close(&in);
    return rgb;
}
