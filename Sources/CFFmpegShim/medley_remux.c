/* Stream copy (medley_movie_remux, medley_movie.h): packets moved from one container into another
 * without decoding, as `ffmpeg -c copy` does; the transcoder copies a sound track through it too. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/avstring.h>
#include <libavutil/log.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const AVOutputFormat *medley_output_format(const char *container) {
    char name[48];
    snprintf(name, sizeof name, "output.%s", container && *container ? container : "mp4");
    return av_guess_format(NULL, name, NULL);
}

static int is_structural(const char *key) {
    static const char *const names[] = {"major_brand", "minor_version", "compatible_brands", "encoder", "duration"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (av_strcasecmp(key, names[i]) == 0) return 1;
    return 0;
}

static int is_mp4_atom(const char *key) {
    static const char *const names[] = {"title", "artist", "album_artist", "album", "composer", "comment", "genre",
                                        "copyright", "grouping", "lyrics", "description", "synopsis", "show",
                                        "episode_id", "network", "keywords", "date", "creation_time"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(key, names[i]) == 0) return 1;
    return 0;
}

int medley_output_copy_tags(const AVFormatContext *input, AVFormatContext *out) {
    const AVDictionaryEntry *tag = NULL;
    int keyed = 0;
    while ((tag = av_dict_get(input->metadata, "", tag, AV_DICT_IGNORE_SUFFIX))) {
        if (is_structural(tag->key)) continue;
        av_dict_set(&out->metadata, tag->key, tag->value, 0);
        if (!is_mp4_atom(tag->key)) keyed = 1;
    }
    return keyed;
}

static int describes_encoding(const char *key) {
    static const char *const prefixes[] = {"_STATISTICS_", "BPS", "DURATION", "NUMBER_OF_FRAMES", "NUMBER_OF_BYTES"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (av_strncasecmp(key, prefixes[i], strlen(prefixes[i])) == 0) return 1;
    return av_strcasecmp(key, "encoder") == 0 || av_strcasecmp(key, "rotate") == 0;
}

void medley_output_copy_stream_tags(const AVStream *in, AVStream *out) {
    const AVDictionaryEntry *tag = NULL;
    while ((tag = av_dict_get(in->metadata, "", tag, AV_DICT_IGNORE_SUFFIX)))
        if (!describes_encoding(tag->key)) av_dict_set(&out->metadata, tag->key, tag->value, 0);
    out->disposition = in->disposition & ~AV_DISPOSITION_ATTACHED_PIC;
}

void medley_report_note(MedleyTranscodeReport *report, const char *format, ...) {
    size_t used = strlen(report->notes);
    if (used + 2 >= sizeof report->notes) return;
    if (used > 0) report->notes[used++] = '\n';
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(report->notes + used, sizeof report->notes - used, format, arguments);
    va_end(arguments);
}

int medley_output_copy_chapters(const AVFormatContext *input, AVFormatContext *out, int64_t duration,
                                MedleyTranscodeReport *report) {
    int64_t start = medley_container_start(input);
    for (unsigned i = 0; i < input->nb_chapters; i++) {
        const AVChapter *c = input->chapters[i];
        if (c->time_base.num <= 0 || c->time_base.den <= 0) continue;
        const AVDictionaryEntry *title = av_dict_get(c->metadata, "title", NULL, 0);
        int64_t origin = av_rescale_q(start, AV_TIME_BASE_Q, c->time_base);
        int64_t from = c->start - origin, to = c->end - origin;
        if (from < 0) from = 0;
        if (duration > 0) {
            int64_t end = av_rescale_q(duration, AV_TIME_BASE_Q, c->time_base);
            if (from >= end) {
                medley_report_note(report, "chapter %u (\"%s\") starts at %.3f s, at or past the movie's end (%.3f s); not kept",
                                   i + 1, title ? title->value : "", from * av_q2d(c->time_base),
                                   duration / (double)AV_TIME_BASE);
                continue;
            }
            if (to > end) {
                medley_report_note(report, "chapter %u (\"%s\") ends at %.3f s, past the movie's end: cut at %.3f s", i + 1,
                                   title ? title->value : "", to * av_q2d(c->time_base), duration / (double)AV_TIME_BASE);
                to = end;
            }
        }
        if (to < from) to = from;
        AVChapter **grown = av_realloc_array(out->chapters, out->nb_chapters + 1, sizeof *grown);
        if (!grown) return -1;
        out->chapters = grown;
        AVChapter *copy = av_mallocz(sizeof *copy);
        if (!copy) return -1;
        copy->id = c->id;
        copy->time_base = c->time_base;
        copy->start = from;
        copy->end = to;
        if (av_dict_copy(&copy->metadata, c->metadata, 0) < 0) { av_free(copy); return -1; }
        out->chapters[out->nb_chapters++] = copy;
    }
    return (int)out->nb_chapters;
}

int medley_output_set_matrix(AVStream *stream, const int32_t *matrix) {
    size_t bytes = 9 * sizeof(int32_t);
#if LIBAVFORMAT_VERSION_INT >= AV_VERSION_INT(60, 15, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&stream->codecpar->coded_side_data,
                                                   &stream->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX,
                                                   bytes, 0);
    uint8_t *copy = sd ? sd->data : NULL;
#else
    uint8_t *copy = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, bytes);
#endif
    if (!copy) return -1;
    memcpy(copy, matrix, bytes);
    return 0;
}

int medley_stream_copy_open(MedleyStreamCopy *copy, const AVFormatContext *input, const AVStream *in,
                            AVFormatContext *out, const char *container, char *error, size_t size) {
    memset(copy, 0, sizeof *copy);
    copy->in = in;
    const char *codec = avcodec_get_name(in->codecpar->codec_id);
    if (avformat_query_codec(out->oformat, in->codecpar->codec_id, FF_COMPLIANCE_NORMAL) == 0) {
        snprintf(error, size, "the .%s container cannot hold %s without re-encoding", container ? container : "mp4",
                 codec);
        return -1;
    }
    AVStream *o = copy->out = avformat_new_stream(out, NULL);
    if (!o) { snprintf(error, size, "out of memory"); return -1; }
    int r = avcodec_parameters_copy(o->codecpar, in->codecpar);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the copied stream", r); return -1; }
    /* The source's codec tag stays when this container knows it for the same codec (hvc1 stays hvc1),
     * as ffmpeg's stream copy decides. */
    uint32_t tag = in->codecpar->codec_tag, known = 0;
    if (out->oformat->codec_tag && av_codec_get_id(out->oformat->codec_tag, tag) != in->codecpar->codec_id &&
        av_codec_get_tag2(out->oformat->codec_tag, in->codecpar->codec_id, &known))
        tag = 0;
    o->codecpar->codec_tag = tag;
    o->time_base = in->time_base;
    o->sample_aspect_ratio = in->sample_aspect_ratio;
    o->avg_frame_rate = in->avg_frame_rate;
    o->r_frame_rate = in->r_frame_rate;
    medley_output_copy_stream_tags(in, o);
    const int32_t *matrix = NULL;
    if (in->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
        medley_displayed_rotation(in, &matrix);
        if (matrix && medley_output_set_matrix(o, matrix) < 0) { snprintf(error, size, "out of memory"); return -1; }
    }
    copy->origin = av_rescale_q(medley_container_start(input), AV_TIME_BASE_Q, in->time_base);
    return 0;
}

int medley_stream_copy_write(MedleyStreamCopy *copy, AVFormatContext *out, AVPacket *packet,
                             MedleyTranscodeReport *report, double *end, char *error, size_t size) {
    if (packet->pts != AV_NOPTS_VALUE) packet->pts -= copy->origin;
    if (packet->dts != AV_NOPTS_VALUE) packet->dts -= copy->origin;
    av_packet_rescale_ts(packet, copy->in->time_base, copy->out->time_base);
    if (packet->dts != AV_NOPTS_VALUE) {
        /* MP4 needs strictly increasing DTS, Matroska non-decreasing: ffmpeg moves a DTS that goes
         * back to just after the last one (and the PTS with it when it would come before). */
        int strict = !(out->oformat->flags & AVFMT_TS_NONSTRICT);
        if (copy->started && (packet->dts < copy->last_dts || (strict && packet->dts == copy->last_dts))) {
            int64_t moved = copy->last_dts + strict;
            if (packet->pts != AV_NOPTS_VALUE && packet->pts >= packet->dts) packet->pts += moved - packet->dts;
            else if (packet->pts != AV_NOPTS_VALUE && packet->pts < moved) packet->pts = moved;
            packet->dts = moved;
            report->fixed_packets++;
        }
        copy->last_dts = packet->dts;
        copy->started = 1;
    }
    int64_t at = packet->pts != AV_NOPTS_VALUE ? packet->pts : packet->dts;
    if (at != AV_NOPTS_VALUE) {
        double stop = (at + (packet->duration > 0 ? packet->duration : 0)) * av_q2d(copy->out->time_base);
        if (stop > *end) *end = stop;
    }
    packet->stream_index = copy->out->index;
    packet->pos = -1;
    int r = av_interleaved_write_frame(out, packet);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write", r); return -1; }
    return 0;
}

int medley_movie_remux(const char *input, const char *output, const char *container, int audio_only,
                       MedleyTranscodeReport *report, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    memset(report, 0, sizeof *report);
    AVFormatContext *in = NULL, *out = NULL;
    AVPacket *packet = NULL;
    MedleyStreamCopy video = {0}, audio = {0};
    int video_index = -1, audio_index = -1, result = -1;
    if (medley_input_open(&in, input, "cannot open", error, size) < 0) goto done;
    audio_index = av_find_best_stream(in, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
    if (!audio_only) {
        video_index = medley_input_pick_video(in);
        if (video_index < 0) { snprintf(error, size, "no video stream"); goto done; }
    } else if (audio_index < 0) {
        snprintf(error, size, "the movie has no sound track");
        goto done;
    }
    const AVOutputFormat *format = medley_output_format(container);
    if (!format) { snprintf(error, size, "FFmpeg has no muxer for .%s", container); goto done; }
    int r = avformat_alloc_output_context2(&out, format, NULL, output);
    if (r < 0 || !out) { medley_ffmpeg_set_error(error, size, "cannot create the container", r); goto done; }
    int keyed = medley_output_copy_tags(in, out);
    if (video_index >= 0 && medley_stream_copy_open(&video, in, in->streams[video_index], out, container, error, size) < 0)
        goto done;
    if (audio_index >= 0 && medley_stream_copy_open(&audio, in, in->streams[audio_index], out, container, error, size) < 0)
        goto done;
    packet = av_packet_alloc();
    if (!packet) { snprintf(error, size, "out of memory"); goto done; }
    r = avio_open(&out->pb, output, AVIO_FLAG_WRITE);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot create the file", r); goto done; }
    AVDictionary *options = NULL;
    if (strcmp(format->name, "mp4") == 0 || strcmp(format->name, "mov") == 0 || strcmp(format->name, "ipod") == 0)
        av_dict_set(&options, "movflags", keyed ? "+faststart+use_metadata_tags" : "+faststart", 0);
    r = avformat_write_header(out, &options);
    av_dict_free(&options);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write the header", r); goto done; }
    int retries = 0;
    for (;;) {
        r = medley_input_read(in, packet, &retries, error, size);
        if (r < 0) goto done;
        if (r == 0) break;
        int status = 0;
        if (packet->stream_index == video_index) {
            report->video_frames++;
            status = medley_stream_copy_write(&video, out, packet, report, &report->video_end, error, size);
        } else if (packet->stream_index == audio_index) {
            status = medley_stream_copy_write(&audio, out, packet, report, &report->audio_end, error, size);
        }
        av_packet_unref(packet);
        if (status < 0) goto done;
    }
    report->written_video_end = report->video_end;
    report->written_audio_end = report->audio_end;
    r = av_write_trailer(out);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); goto done; }
    r = avio_closep(&out->pb);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); goto done; }
    result = 0;
done:
    av_packet_free(&packet);
    if (out) {
        if (out->pb) avio_closep(&out->pb);
        avformat_free_context(out);
    }
    avformat_close_input(&in);
    return result;
}
