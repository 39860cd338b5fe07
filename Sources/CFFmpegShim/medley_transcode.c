/* Re-encoding a movie (medley_movie_transcode, medley_movie.h): decode with libavcodec, crop and
 * scale with libswscale, mix and resample each kept sound track with libswresample, encode with
 * libx264 (or libx265, SVT-AV1, libaom, libvpx-vp9) and FFmpeg's AAC (or Opus, MP3, FLAC, ALAC,
 * Vorbis), or copy the picture's or the sound's packets; subtitles, attachments and chapters come
 * along; mux into MP4 (moov first), MOV, Matroska or WebM. */
#include "medley_ffmpeg_internal.h"

#include <libavutil/audio_fifo.h>
#include <libavutil/avstring.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One kept sound track: re-encoded (decoder → converter → FIFO → encoder) or copied. */
typedef struct AudioTrack {
    int index;                 /* the source stream */
    AVCodecContext *decoder, *encoder;
    AVStream *out;
    SwrContext *swr;
    AVAudioFifo *fifo;
    AVFrame *sound;
    uint8_t **converted;       /* swr output planes */
    int converted_capacity;    /* samples per plane */
    int64_t next_pts;          /* in samples */
    int started;
    int channels, format, rate; /* the decoded sound's shape the converter was set up for */
    MedleyStreamCopy copy;     /* the packets, when copied */
    int copied;
    double end, written_end;   /* where the decoded and the written sound end (seconds) */
    int64_t samples;           /* samples per channel encoded */
} AudioTrack;


typedef struct Transcoder {
    MedleyMovieInput in;
    const MedleyTranscodeSettings *settings;
    MedleyTranscodeReport *report;
    AVFormatContext *out;
    AVCodecContext *video_encoder;
    AVStream *video_out;
    MedleyStreamCopy video_copy;  /* the picture's packets, when copied */
    struct SwsContext *sws;
    MedleyPictureFilter *filter;  /* deinterlacing, tone mapping: before the crop and scale */
    AVFrame *decoded, *picture, *filtered;
    AVPacket *packet, *encoded;
    AudioTrack *audio;
    int audio_count;
    MedleySubtitleTrack *subtitles;  /* copied, or text converted to what the container holds */
    int subtitle_count;
    AVFormatContext **files;         /* subtitle files muxed in, open while their tracks are */
    MedleySubtitleTrack *file_tracks;
    int file_count;
    int64_t origin_video;      /* the input video timestamp that becomes 0 */
    int64_t last_video_pts;
    int64_t last_source_pts;   /* the last picture's source timestamp (repeats and jumps are found on it) */
    int64_t last_source_duration;
    int64_t shift;             /* added to the source timestamps after a re-timed run (source time base) */
    int have_source_pts;
    int pass;                  /* 0: one pass; 1: the statistics pass (nothing written); 2: the pass by them */
    const char *first_pass_stats; /* the encoder's statistics from pass 1 (libvpx's), for pass 2 */
    char *stats_out;           /* what the encoder gave at the end of pass 1 */
} Transcoder;

/* `speed` for an encoder: x264 and x265 take the preset name; SVT-AV1 its preset number; libaom
 * and libvpx cpu-used (the Swift side maps names to numbers). */
static void set_encoder_options(const char *name, const MedleyTranscodeSettings *s, int pass, AVDictionary **options) {
    char crf[16];
    snprintf(crf, sizeof crf, "%d", s->crf);
    int by_rate = s->video_bit_rate > 0;
    if (!by_rate) av_dict_set(options, "crf", crf, 0);
    const char *speed = s->x264_preset;
    char params[PATH_MAX + 160];
    if (strcmp(name, "libx264") == 0) {
        av_dict_set(options, "preset", speed ? speed : "medium", 0);
        if (s->gop > 1) {
            snprintf(params, sizeof params, "scenecut=0:min-keyint=%d", s->gop);
            av_dict_set(options, "x264-params", params, 0);
        }
        /* x264 keeps its first pass's statistics in a file (by default in the working folder). */
        if (pass && s->stats_path) av_dict_set(options, "stats", s->stats_path, 0);
    } else if (strcmp(name, "libx265") == 0) {
        av_dict_set(options, "preset", speed ? speed : "medium", 0);
        int n = snprintf(params, sizeof params, "log-level=none");
        if (s->gop > 1) n += snprintf(params + n, sizeof params - n, ":scenecut=0:min-keyint=%d:open-gop=0", s->gop);
        /* FFmpeg 5.1's libx265 wrapper knows no passes: x265's own options name them and the file. */
        if (pass && s->stats_path && n < (int)sizeof params)
            n += snprintf(params + n, sizeof params - n, ":pass=%d:stats=%s", pass, s->stats_path);
        /* HDR kept: x265 writes the mastering display and light levels as SEI (5.1's wrapper does not
         * pass the frames' side data on). */
        if (s->master_display && *s->master_display && n < (int)sizeof params)
            n += snprintf(params + n, sizeof params - n, ":hdr10=1:master-display=%s", s->master_display);
        if (s->max_cll > 0 && n < (int)sizeof params)
            snprintf(params + n, sizeof params - n, ":max-cll=%d,%d", s->max_cll, s->max_fall);
        av_dict_set(options, "x265-params", params, 0);
    } else if (strcmp(name, "libsvtav1") == 0) {
        if (speed) av_dict_set(options, "preset", speed, 0);
    } else if (strcmp(name, "libaom-av1") == 0 || strcmp(name, "libvpx-vp9") == 0) {
        /* Constant quality: CRF with no bit-rate target (`-b:v 0`). */
        if (!by_rate) av_dict_set(options, "b", "0", 0);
        if (speed) av_dict_set(options, "cpu-used", speed, 0);
        av_dict_set(options, "row-mt", "1", 0);
        if (strcmp(name, "libvpx-vp9") == 0) av_dict_set(options, "deadline", "good", 0);
    }
    if (s->video_profile) av_dict_set(options, "profile", s->video_profile, 0);
}

static int open_video_encoder(Transcoder *t, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    const AVStream *source = t->in.format->streams[t->in.video];
    const AVCodecContext *decoder = t->in.video_decoder;
    const char *name = s->video_encoder ? s->video_encoder : "libx264";
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec) { snprintf(error, size, "this FFmpeg has no %s encoder", name); return -1; }
    AVCodecContext *e = t->video_encoder = avcodec_alloc_context3(codec);
    t->video_out = avformat_new_stream(t->out, NULL);
    if (!e || !t->video_out) { snprintf(error, size, "out of memory"); return -1; }
    e->width = s->width;
    e->height = s->height;
    e->pix_fmt = s->ten_bit ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
    if (s->video_bit_rate > 0) e->bit_rate = s->video_bit_rate;
    /* libavcodec's passes (libvpx keeps its statistics in memory, handed from pass to pass). */
    if (t->pass == 1) e->flags |= AV_CODEC_FLAG_PASS1;
    if (t->pass == 2) {
        e->flags |= AV_CODEC_FLAG_PASS2;
        if (t->first_pass_stats) e->stats_in = av_strdup(t->first_pass_stats);
    }
    e->sample_aspect_ratio = (AVRational){s->sar_num > 0 ? s->sar_num : 1, s->sar_den > 0 ? s->sar_den : 1};
    e->time_base = source->time_base;
    AVRational rate = source->avg_frame_rate.num > 0 ? source->avg_frame_rate : source->r_frame_rate;
    if (s->fps_num > 0 && s->fps_den > 0) {
        rate = (AVRational){s->fps_num, s->fps_den};
        e->time_base = av_inv_q(rate);
    }
    if (rate.num > 0 && rate.den > 0) e->framerate = rate;
    e->color_range = AVCOL_RANGE_MPEG;
    e->colorspace = decoder->colorspace;
    e->color_primaries = decoder->color_primaries;
    e->color_trc = decoder->color_trc;
    if (s->tonemap && (decoder->color_trc == AVCOL_TRC_SMPTE2084 || decoder->color_trc == AVCOL_TRC_ARIB_STD_B67)) {
        /* Tone-mapped pictures are BT.709 SDR (the filter tags them so). */
        e->colorspace = AVCOL_SPC_BT709;
        e->color_primaries = AVCOL_PRI_BT709;
        e->color_trc = AVCOL_TRC_BT709;
    }
    if (s->gop > 0) e->gop_size = s->gop;
    if (s->gop > 1) e->keyint_min = s->gop;
    if (s->gop == 1) e->max_b_frames = 0;
    if (s->max_bit_rate > 0) {
        e->rc_max_rate = s->max_bit_rate;
        e->rc_buffer_size = (int)(s->buffer_bits > 0 ? s->buffer_bits : s->max_bit_rate);
    }
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    e->thread_count = 0;
    AVDictionary *options = NULL;
    set_encoder_options(name, s, t->pass, &options);
    int r = avcodec_open2(e, codec, &options);
    av_dict_free(&options);
    if (r < 0) {
        char what[64];
        snprintf(what, sizeof what, "cannot start the %s encoder", name);
        medley_ffmpeg_set_error(error, size, what, r);
        return -1;
    }
    r = avcodec_parameters_from_context(t->video_out->codecpar, e);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the video stream", r); return -1; }
    t->video_out->time_base = e->time_base;
    t->video_out->sample_aspect_ratio = e->sample_aspect_ratio;
    if (rate.num > 0 && rate.den > 0) t->video_out->avg_frame_rate = rate;
    medley_output_copy_stream_tags(source, t->video_out);

    /* The display matrix as it was (a hand-written one may also mirror), else the rotate tag's. */
    const int32_t *matrix = NULL;
    medley_displayed_rotation(source, &matrix);
    int32_t built[9];
    if (!matrix && s->rotation) {
        av_display_rotation_set(built, -s->rotation);
        matrix = built;
    }
    if (matrix && medley_output_set_matrix(t->video_out, matrix) < 0) { snprintf(error, size, "out of memory"); return -1; }
    /* HDR kept: the mastering display and light levels go into the container (MKV, MP4) as the
     * source's container had them, else as its frames carry them (FFmpeg 5.1's SVT-AV1 and libvpx
     * wrappers write none into the stream; x265 writes its SEI as well). */
    if (e->color_trc == AVCOL_TRC_SMPTE2084 || e->color_trc == AVCOL_TRC_ARIB_STD_B67) {
        const enum AVPacketSideDataType kinds[] = {AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL};
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            size_t bytes = 0;
            const uint8_t *data = av_stream_get_side_data(source, kinds[k], &bytes);
            if (data && bytes > 0) {
                uint8_t *copy = av_stream_new_side_data(t->video_out, kinds[k], bytes);
                if (!copy) { snprintf(error, size, "out of memory"); return -1; }
                memcpy(copy, data, bytes);
            } else if (kinds[k] == AV_PKT_DATA_MASTERING_DISPLAY_METADATA && s->mastering) {
                AVMasteringDisplayMetadata *m = (AVMasteringDisplayMetadata *)av_stream_new_side_data(
                    t->video_out, kinds[k], sizeof(AVMasteringDisplayMetadata));
                if (!m) { snprintf(error, size, "out of memory"); return -1; }
                memset(m, 0, sizeof *m);
                /* x, y of green, blue, red in the SEI's order; the struct's is red, green, blue. */
                static const int order[3] = {1, 2, 0};
                for (int c = 0; c < 3; c++) {
                    m->display_primaries[order[c]][0] = av_d2q(s->mastering[2 * c], 50000);
                    m->display_primaries[order[c]][1] = av_d2q(s->mastering[2 * c + 1], 50000);
                }
                m->white_point[0] = av_d2q(s->mastering[6], 50000);
                m->white_point[1] = av_d2q(s->mastering[7], 50000);
                m->max_luminance = av_d2q(s->mastering[8], 10000);
                m->min_luminance = av_d2q(s->mastering[9], 10000);
                m->has_primaries = m->has_luminance = 1;
            } else if (kinds[k] == AV_PKT_DATA_CONTENT_LIGHT_LEVEL && s->max_cll > 0) {
                AVContentLightMetadata *l = (AVContentLightMetadata *)av_stream_new_side_data(
                    t->video_out, kinds[k], sizeof(AVContentLightMetadata));
                if (!l) { snprintf(error, size, "out of memory"); return -1; }
                l->MaxCLL = (unsigned)s->max_cll;
                l->MaxFALL = (unsigned)(s->max_fall > 0 ? s->max_fall : 0);
            }
        }
    }

    t->picture = av_frame_alloc();
    if (!t->picture) { snprintf(error, size, "out of memory"); return -1; }
    t->picture->format = e->pix_fmt;
    t->picture->width = e->width;
    t->picture->height = e->height;
    r = av_frame_get_buffer(t->picture, 0);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot allocate a picture", r); return -1; }
    return 0;
}

/* Records that the output's next stream comes from the source stream `index`. */
static void keep(Transcoder *t, int index) {
    MedleyTranscodeReport *r = t->report;
    if (r->kept_count < (int)(sizeof r->kept / sizeof *r->kept)) r->kept[r->kept_count] = index;
    r->kept_count++;
}

/* Opens each subtitle file to mux in as a track of its own, its language from the caller; writes
 * its cues once the header is written (they are few: the muxer interleaves them). A file FFmpeg
 * cannot read as subtitles is left out with a note. */
static int open_subtitle_files(Transcoder *t, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    if (s->subtitle_file_count <= 0) return 0;
    t->files = calloc((size_t)s->subtitle_file_count, sizeof *t->files);
    t->file_tracks = calloc((size_t)s->subtitle_file_count, sizeof *t->file_tracks);
    if (!t->files || !t->file_tracks) { snprintf(error, size, "out of memory"); return -1; }
    for (int i = 0; i < s->subtitle_file_count; i++) {
        const char *path = s->subtitle_files[i];
        const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char why[256] = "";
        AVFormatContext *file = NULL;
        if (medley_input_open(&file, path, "cannot read it", why, sizeof why) < 0) {
            medley_report_note(t->report, "subtitle file %s: %s; not muxed in", name, why);
            continue;
        }
        int stream = av_find_best_stream(file, AVMEDIA_TYPE_SUBTITLE, -1, -1, NULL, 0);
        if (stream < 0) {
            medley_report_note(t->report, "subtitle file %s: no subtitles in it; not muxed in", name);
            avformat_close_input(&file);
            continue;
        }
        MedleySubtitleTrack *track = &t->file_tracks[t->file_count];
        int opened = medley_subtitle_track_open(track, file, file->streams[stream], t->out, s->container, why, sizeof why,
                                                error, size);
        if (opened <= 0) {
            if (opened == 0) medley_report_note(t->report, "subtitle file %s: %s; not muxed in", name, why);
            medley_subtitle_track_close(track);
            avformat_close_input(&file);
            if (opened < 0) return -1;
            continue;
        }
        const char *language = s->subtitle_file_languages ? s->subtitle_file_languages[i] : NULL;
        if (language && *language) av_dict_set(&track->out->metadata, "language", language, 0);
        int flags = s->subtitle_file_dispositions ? s->subtitle_file_dispositions[i] : 0;
        track->out->disposition = (flags & 1 ? AV_DISPOSITION_FORCED : 0) |
                                  (flags & 2 ? AV_DISPOSITION_HEARING_IMPAIRED : 0) | (flags & 4 ? AV_DISPOSITION_DEFAULT : 0);
        t->files[t->file_count++] = file;
        keep(t, -1);
    }
    return 0;
}

/* Writes every cue of the subtitle files (after the header). */
static int write_subtitle_files(Transcoder *t, char *error, size_t size) {
    for (int i = 0; i < t->file_count; i++) {
        int reads = 0;
        for (;;) {
            int r = medley_input_read(t->files[i], t->packet, &reads, error, size);
            if (r < 0) return -1;
            if (r == 0) break;
            if (t->packet->stream_index == t->file_tracks[i].in->index)
                r = medley_subtitle_track_write(&t->file_tracks[i], t->out, t->packet, error, size);
            else
                r = 0;
            av_packet_unref(t->packet);
            if (r < 0) return -1;
        }
    }
    return 0;
}

/* The stream's description in notes: "audio stream 2 (ac3, fra)". */
static void describe_stream(const AVStream *s, const char *kind, char *text, size_t size) {
    const AVDictionaryEntry *language = av_dict_get(s->metadata, "language", NULL, 0);
    snprintf(text, size, "%s stream %d (%s%s%s)", kind, s->index, avcodec_get_name(s->codecpar->codec_id),
             language ? ", " : "", language ? language->value : "");
}

static int open_audio_encoder(Transcoder *t, AudioTrack *a, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    const char *name = s->audio_encoder ? s->audio_encoder : "aac";
    const AVCodec *codec = avcodec_find_encoder_by_name(name);
    if (!codec) { snprintf(error, size, "this FFmpeg has no %s encoder", name); return -1; }
    AVCodecContext *e = a->encoder = avcodec_alloc_context3(codec);
    a->out = avformat_new_stream(t->out, NULL);
    if (!e || !a->out) { snprintf(error, size, "out of memory"); return -1; }
    e->sample_fmt = codec->sample_fmts ? codec->sample_fmts[0] : AV_SAMPLE_FMT_FLTP;
    for (const enum AVSampleFormat *f = codec->sample_fmts; f && *f != AV_SAMPLE_FMT_NONE; f++)
        if (*f == AV_SAMPLE_FMT_FLTP) e->sample_fmt = *f;
    e->sample_rate = s->audio_sample_rate;
    av_channel_layout_default(&e->ch_layout, s->audio_channels);
    if (s->audio_bit_rate > 0) e->bit_rate = s->audio_bit_rate;
    e->time_base = (AVRational){1, s->audio_sample_rate};
    if (t->out->oformat->flags & AVFMT_GLOBALHEADER) e->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int r = avcodec_open2(e, codec, NULL);
    if (r < 0) {
        char what[64];
        snprintf(what, sizeof what, "cannot start the %s encoder", name);
        medley_ffmpeg_set_error(error, size, what, r);
        return -1;
    }
    if (e->frame_size <= 0) e->frame_size = 1024; /* PCM, FLAC: any size; 1024 frames a packet */
    r = avcodec_parameters_from_context(a->out->codecpar, e);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the audio stream", r); return -1; }
    a->out->time_base = e->time_base;
    medley_output_copy_stream_tags(t->in.format->streams[a->index], a->out);
    a->fifo = av_audio_fifo_alloc(e->sample_fmt, s->audio_channels, 4 * e->frame_size);
    a->sound = av_frame_alloc();
    if (!a->fifo || !a->sound) { snprintf(error, size, "out of memory"); return -1; }
    a->sound->format = e->sample_fmt;
    r = av_channel_layout_copy(&a->sound->ch_layout, &e->ch_layout);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the sound's channels", r); return -1; }
    a->sound->sample_rate = e->sample_rate;
    a->sound->nb_samples = e->frame_size;
    r = av_frame_get_buffer(a->sound, 0);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot allocate a sound frame", r); return -1; }
    return 0;
}

/* Opens the kept sound tracks: each copied or decoded and re-encoded. A track whose codec FFmpeg
 * cannot decode, or that the container cannot hold as it is, is left out with a note; −1 only for
 * errors that would fail any track (an encoder missing, memory). */
static int open_audio_tracks(Transcoder *t, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    if (s->audio_stream_count <= 0 || (!s->audio_copy && s->audio_channels <= 0)) return 0;
    t->audio = calloc((size_t)s->audio_stream_count, sizeof *t->audio);
    if (!t->audio) { snprintf(error, size, "out of memory"); return -1; }
    for (int i = 0; i < s->audio_stream_count; i++) {
        int index = s->audio_streams[i];
        if (index < 0 || index >= (int)t->in.format->nb_streams ||
            t->in.format->streams[index]->codecpar->codec_type != AVMEDIA_TYPE_AUDIO)
            continue;
        const AVStream *source = t->in.format->streams[index];
        AudioTrack *a = &t->audio[t->audio_count];
        memset(a, 0, sizeof *a);
        a->index = index;
        char what[96], why[256];
        describe_stream(source, "audio", what, sizeof what);
        if (s->audio_copy) {
            if (medley_stream_copy_open(&a->copy, t->in.format, source, t->out, s->container, why, sizeof why) < 0) {
                if (!a->copy.out) { medley_report_note(t->report, "%s: %s; not kept", what, why); continue; }
                snprintf(error, size, "%s", why);
                return -1;
            }
            a->copied = 1;
            keep(t, index);
            t->audio_count++;
            continue;
        }
        /* One decoding thread: see the video decoder's. */
        if (medley_movie_open_decoder(&t->in, index, &a->decoder, 1, why, sizeof why) < 0) {
            avcodec_free_context(&a->decoder);
            medley_report_note(t->report, "%s: %s; not kept", what, why);
            continue;
        }
        t->audio_count++;
        if (open_audio_encoder(t, a, error, size) < 0) return -1;
        keep(t, index);
    }
    return 0;
}

static AudioTrack *audio_track(Transcoder *t, int index) {
    for (int i = 0; i < t->audio_count; i++)
        if (t->audio[i].index == index) return &t->audio[i];
    return NULL;
}

/* Opens the kept subtitle streams (copied, or text converted to the container's kind) and
 * attachments (copied; only Matroska holds them); one the container cannot hold is left out with
 * a note. */
static int open_subtitles_and_attachments(Transcoder *t, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    if (s->subtitle_stream_count > 0) {
        t->subtitles = calloc((size_t)s->subtitle_stream_count, sizeof *t->subtitles);
        if (!t->subtitles) { snprintf(error, size, "out of memory"); return -1; }
    }
    for (int i = 0; i < s->subtitle_stream_count; i++) {
        int index = s->subtitle_streams[i];
        if (index < 0 || index >= (int)t->in.format->nb_streams) continue;
        const AVStream *source = t->in.format->streams[index];
        if (source->codecpar->codec_type != AVMEDIA_TYPE_SUBTITLE) continue;
        char what[96], why[256] = "";
        describe_stream(source, "subtitle", what, sizeof what);
        MedleySubtitleTrack *track = &t->subtitles[t->subtitle_count];
        int opened = medley_subtitle_track_open(track, t->in.format, source, t->out, s->container, why, sizeof why, error, size);
        if (opened < 0) {
            /* The stream may exist in the output already: the item fails, as the CLI's does. */
            char reason[256];
            snprintf(reason, sizeof reason, "%s", error);
            snprintf(error, size, "%s: %s", what, reason);
            medley_subtitle_track_close(track);
            return -1;
        }
        if (opened == 0) {
            medley_report_note(t->report, "%s: %s; not kept", what, why);
            medley_subtitle_track_close(track);
            continue;
        }
        keep(t, index);
        t->subtitle_count++;
    }
    for (int i = 0; i < s->attachment_stream_count; i++) {
        int index = s->attachment_streams[i];
        if (index < 0 || index >= (int)t->in.format->nb_streams) continue;
        const AVStream *source = t->in.format->streams[index];
        if (source->codecpar->codec_type != AVMEDIA_TYPE_ATTACHMENT) continue;
        char what[160];
        const AVDictionaryEntry *name = av_dict_get(source->metadata, "filename", NULL, 0);
        if (name) snprintf(what, sizeof what, "attachment %s", name->value);
        else describe_stream(source, "attachment", what, sizeof what);
        if (strcmp(t->out->oformat->name, "matroska") != 0) {
            medley_report_note(t->report, "%s: only .mkv holds attachments; not kept", what);
            continue;
        }
        AVStream *o = avformat_new_stream(t->out, NULL);
        if (!o) { snprintf(error, size, "out of memory"); return -1; }
        int r = avcodec_parameters_copy(o->codecpar, source->codecpar);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot describe the attachment", r); return -1; }
        medley_output_copy_stream_tags(source, o);
        keep(t, index);
        /* An attachment has no packets: its file is the stream's extradata. */
    }
    return 0;
}

static int encode_picture(Transcoder *t, AVFrame *frame, char *error, size_t size) {
    const MedleyTranscodeSettings *s = t->settings;
    if (!frame && s->fps_num > 0 && s->fps_den > 0 && t->have_source_pts && t->last_video_pts >= 0) {
        /* A constant rate ends where the last picture does: its slots up to its end are filled. */
        const AVStream *source = t->in.format->streams[t->in.video];
        int64_t end = av_rescale_q_rnd(t->last_source_pts + t->last_source_duration - t->origin_video, source->time_base,
                                       t->video_encoder->time_base, AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
        for (int64_t slot = t->last_video_pts + 1; slot < end && slot - t->last_video_pts < 600LL * s->fps_num; slot++) {
            int r = av_frame_make_writable(t->picture);
            if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot reuse a picture", r); return -1; }
            t->picture->pts = slot;
            r = avcodec_send_frame(t->video_encoder, t->picture);
            if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
            t->report->video_frames++;
            if (medley_output_drain(t->video_encoder, t->video_out, t->out, t->encoded, error, size) < 0) return -1;
            t->last_video_pts = slot;
            double written = (slot + 1) * av_q2d(t->video_encoder->time_base);
            if (written > t->report->written_video_end) t->report->written_video_end = written;
        }
    }
    if (!frame) {
        int r = avcodec_send_frame(t->video_encoder, NULL);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
        return medley_output_drain(t->video_encoder, t->video_out, t->out, t->encoded, error, size);
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
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot crop the picture", r); return -1; }
    }
    t->sws = sws_getCachedContext(t->sws, frame->width, frame->height, frame->format, s->width, s->height,
                                  t->video_encoder->pix_fmt, SWS_BICUBIC, NULL, NULL, NULL);
    if (!t->sws) { snprintf(error, size, "cannot scale %s pictures", av_get_pix_fmt_name(frame->format)); return -1; }
    int *inverse, *table, source_full, destination_full, brightness, contrast, saturation;
    if (sws_getColorspaceDetails(t->sws, &inverse, &source_full, &table, &destination_full, &brightness, &contrast,
                                 &saturation) >= 0) {
        if (frame->colorspace != AVCOL_SPC_UNSPECIFIED) inverse = table = (int *)sws_getCoefficients(frame->colorspace);
        if (frame->color_range != AVCOL_RANGE_UNSPECIFIED) source_full = frame->color_range == AVCOL_RANGE_JPEG;
        sws_setColorspaceDetails(t->sws, inverse, source_full, table, 0, brightness, contrast, saturation);
    }
    int r = av_frame_make_writable(t->picture);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot reuse a picture", r); return -1; }
    sws_scale(t->sws, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, t->picture->data,
              t->picture->linesize);
    const AVStream *source = t->in.format->streams[t->in.video];
    int64_t duration = medley_frame_duration(frame, source);
    if (pts == AV_NOPTS_VALUE) pts = t->have_source_pts ? t->last_source_pts + t->last_source_duration : t->origin_video;
    else pts += t->shift;
    /* Broken timing. A picture whose timestamp repeats or goes back is given the time after the
     * picture before it (its duration on), and the pictures after it move with it; a later jump
     * forward takes the shift back, so a run of repeated timestamps inside a stream whose times are
     * otherwise right ends where it was, and one whose later times continue from the repeat keeps
     * its length. Either way the picture lasts as long as the sound. (ffmpeg drops such pictures,
     * which leaves the second kind shorter than its sound.) A jump forward that remains is kept as
     * a longer display of the picture before it; the longest is reported. */
    if (t->have_source_pts && pts <= t->last_source_pts) {
        int64_t moved = t->last_source_pts + t->last_source_duration;
        t->shift += moved - pts;
        pts = moved;
        t->report->repeated_frames++;
    } else if (t->have_source_pts && t->shift > 0 && pts > t->last_source_pts + t->last_source_duration) {
        int64_t absorbed = FFMIN(t->shift, pts - t->last_source_pts - t->last_source_duration);
        t->shift -= absorbed;
        pts -= absorbed;
    }
    if (t->have_source_pts) {
        double gap = (pts - t->last_source_pts - t->last_source_duration) * av_q2d(source->time_base);
        if (gap > t->report->largest_gap) {
            t->report->largest_gap = gap;
            t->report->gap_at = (t->last_source_pts - t->origin_video) * av_q2d(source->time_base);
        }
    }
    t->last_source_pts = pts;
    t->last_source_duration = duration;
    t->have_source_pts = 1;
    pts -= t->origin_video;
    int64_t copies = 1;
    if (s->fps_num > 0 && s->fps_den > 0) {
        /* A constant rate (ffmpeg -r): the picture takes the output slots from the next one up to
         * its time; none when an earlier picture already holds its slot. */
        int64_t slot = av_rescale_q_rnd(pts, source->time_base, t->video_encoder->time_base,
                                        AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
        if (slot <= t->last_video_pts) return 0;
        copies = t->last_video_pts < 0 ? 1 : slot - t->last_video_pts;
        /* A hostile or broken timestamp far ahead would have the picture repeated for hours. */
        if (copies > (int64_t)s->fps_num / s->fps_den * 600 + 1) {
            snprintf(error, size, "the picture's timestamps jump %.1f s at %.3f s; a constant frame rate would repeat a picture "
                     "%lld times", (double)(copies - 1) * s->fps_den / s->fps_num,
                     (double)t->last_video_pts * s->fps_den / s->fps_num, (long long)copies);
            return -1;
        }
        if (t->last_video_pts < 0) t->last_video_pts = slot - 1;
    } else if (pts <= t->last_video_pts) {
        pts = t->last_video_pts + 1;
    }
    for (int64_t i = 0; i < copies; i++) {
        int64_t at = s->fps_num > 0 ? t->last_video_pts + 1 : pts;
        if (i > 0) {
            r = av_frame_make_writable(t->picture);
            if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot reuse a picture", r); return -1; }
        }
        t->last_video_pts = at;
        t->picture->pts = at;
        r = avcodec_send_frame(t->video_encoder, t->picture);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
        t->report->video_frames++;
        if (medley_output_drain(t->video_encoder, t->video_out, t->out, t->encoded, error, size) < 0) return -1;
    }
    double end = (t->last_video_pts + 1) * av_q2d(t->video_encoder->time_base);
    if (s->fps_num <= 0) end = (pts + duration) * av_q2d(source->time_base);
    if (end > t->report->written_video_end) t->report->written_video_end = end;
    return 0;
}

/* Encodes whole encoder frames from the FIFO; `all` also sends the short remainder. */
static int encode_fifo(Transcoder *t, AudioTrack *a, int all, char *error, size_t size) {
    int frame_size = a->encoder->frame_size;
    while (av_audio_fifo_size(a->fifo) >= frame_size || (all && av_audio_fifo_size(a->fifo) > 0)) {
        int r = av_frame_make_writable(a->sound);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot reuse a sound frame", r); return -1; }
        int n = av_audio_fifo_read(a->fifo, (void **)a->sound->data, frame_size);
        if (n <= 0) { snprintf(error, size, "cannot buffer sound"); return -1; }
        a->sound->nb_samples = n;
        a->sound->pts = a->next_pts;
        a->next_pts += n;
        r = avcodec_send_frame(a->encoder, a->sound);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
        a->samples += n;
        if (medley_output_drain(a->encoder, a->out, t->out, t->encoded, error, size) < 0) return -1;
    }
    return 0;
}

/* Converts one decoded sound frame (NULL: drains the resampler) into the FIFO and encodes. */
static int encode_sound(Transcoder *t, AudioTrack *a, AVFrame *frame, char *error, size_t size) {
    const AVStream *source = t->in.format->streams[a->index];
    int rate = a->encoder->sample_rate;
    /* The converter is set up for the first frame's layout, format and rate; a frame that differs (a stream
     * that changes mid-way) would have it read planes the frame does not have. */
    if (frame && a->swr && (frame->ch_layout.nb_channels != a->channels || frame->format != a->format ||
                            frame->sample_rate != a->rate)) {
        snprintf(error, size, "the sound changes its layout mid-way (%d channels at %d Hz, then %d at %d Hz)",
                 a->channels, a->rate, frame->ch_layout.nb_channels, frame->sample_rate);
        return -1;
    }
    if (frame && !a->swr) {
        a->channels = frame->ch_layout.nb_channels;
        a->format = frame->format;
        a->rate = frame->sample_rate;
        AVChannelLayout layout;
        if (frame->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || frame->ch_layout.nb_channels <= 0)
            av_channel_layout_default(&layout, frame->ch_layout.nb_channels > 0 ? frame->ch_layout.nb_channels : 2);
        else
            av_channel_layout_copy(&layout, &frame->ch_layout);
        int r = swr_alloc_set_opts2(&a->swr, &a->encoder->ch_layout, a->encoder->sample_fmt, rate,
                                    &layout, frame->format, frame->sample_rate, 0, NULL);
        av_channel_layout_uninit(&layout);
        if (r >= 0) r = swr_init(a->swr);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot convert the sound", r); return -1; }
    }
    if (!a->swr) return 0;
    if (frame && !a->started) {
        a->started = 1;
        int64_t pts = frame->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            int64_t from_start = av_rescale_q(pts, source->time_base, AV_TIME_BASE_Q) - medley_container_start(t->in.format);
            int64_t samples = av_rescale(from_start, rate, AV_TIME_BASE);
            a->next_pts = samples > 0 ? samples : 0;
        }
    }
    int wanted = swr_get_out_samples(a->swr, frame ? frame->nb_samples : 0);
    if (wanted < 0) { snprintf(error, size, "cannot convert the sound"); return -1; }
    if (wanted > a->converted_capacity) {
        if (a->converted) av_freep(&a->converted[0]);
        av_freep(&a->converted);
        int r = av_samples_alloc_array_and_samples(&a->converted, NULL, a->encoder->ch_layout.nb_channels,
                                                   wanted, a->encoder->sample_fmt, 0);
        if (r < 0) { a->converted_capacity = 0; medley_ffmpeg_set_error(error, size, "cannot allocate sound", r); return -1; }
        a->converted_capacity = wanted;
    }
    int n = swr_convert(a->swr, a->converted, a->converted_capacity,
                        frame ? (const uint8_t **)frame->extended_data : NULL, frame ? frame->nb_samples : 0);
    if (n < 0) { medley_ffmpeg_set_error(error, size, "cannot convert the sound", n); return -1; }
    if (n > 0 && av_audio_fifo_write(a->fifo, (void **)a->converted, n) < n) {
        snprintf(error, size, "cannot buffer sound");
        return -1;
    }
    return encode_fifo(t, a, 0, error, size);
}

/* Sends a packet (NULL: flush) to a decoder and handles every frame it gives back. */
/* Sends a decoded picture (NULL: the end) through the picture filter and encodes what comes out. */
static int filter_picture(Transcoder *t, AVFrame *frame, char *error, size_t size) {
    if (medley_picture_filter_send(t->filter, frame, error, size) < 0) return -1;
    for (;;) {
        int got = medley_picture_filter_receive(t->filter, t->filtered, error, size);
        if (got < 0) return -1;
        if (got == 0) return 0;
        int r = encode_picture(t, t->filtered, error, size);
        av_frame_unref(t->filtered);
        if (r < 0) return -1;
    }
}

/* `sound` is the track a sound packet belongs to (NULL for the picture). */
static int decode(Transcoder *t, AVCodecContext *decoder, AudioTrack *sound, AVPacket *packet, char *error, size_t size) {
    int is_video = sound == NULL;
    int r = avcodec_send_packet(decoder, packet);
    if (r < 0 && r != AVERROR(EAGAIN) && r != AVERROR_EOF) {
        if (is_video) t->report->damaged_frames++;  /* a rejected picture is a damaged one too */
        if (++t->report->decode_errors > MAX_DECODE_ERRORS) {
            medley_ffmpeg_set_error(error, size, "too many undecodable packets", r);
            return -1;
        }
        return 0;
    }
    for (;;) {
        r = avcodec_receive_frame(decoder, t->decoded);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) {
            if (++t->report->decode_errors > MAX_DECODE_ERRORS) {
                medley_ffmpeg_set_error(error, size, "too many undecodable frames", r);
                return -1;
            }
            return 0;
        }
        const AVStream *stream = t->in.format->streams[is_video ? t->in.video : sound->index];
        int64_t pts = t->decoded->best_effort_timestamp;
        if (pts != AV_NOPTS_VALUE) {
            double end = pts * av_q2d(stream->time_base) - medley_container_start(t->in.format) / (double)AV_TIME_BASE;
            if (is_video) {
                end += medley_frame_duration(t->decoded, stream) * av_q2d(stream->time_base);
                if (end > t->report->video_end) t->report->video_end = end;
            } else if (t->decoded->sample_rate > 0) {
                end += t->decoded->nb_samples / (double)t->decoded->sample_rate;
                if (end > sound->end) sound->end = end;
                if (end > t->report->audio_end) t->report->audio_end = end;
            }
        }
        if (is_video && medley_frame_is_damaged(t->decoded)) t->report->damaged_frames++;
        if (is_video && t->filter) r = filter_picture(t, t->decoded, error, size);
        else r = is_video ? encode_picture(t, t->decoded, error, size) : encode_sound(t, sound, t->decoded, error, size);
        av_frame_unref(t->decoded);
        if (r < 0) return -1;
    }
}

static void transcoder_free(Transcoder *t) {
    sws_freeContext(t->sws);
    medley_picture_filter_free(&t->filter);
    av_frame_free(&t->filtered);
    for (int i = 0; i < t->audio_count; i++) {
        AudioTrack *a = &t->audio[i];
        swr_free(&a->swr);
        if (a->fifo) av_audio_fifo_free(a->fifo);
        if (a->converted) av_freep(&a->converted[0]);
        av_freep(&a->converted);
        av_frame_free(&a->sound);
        avcodec_free_context(&a->encoder);
        avcodec_free_context(&a->decoder);
    }
    free(t->audio);
    for (int i = 0; i < t->subtitle_count; i++) medley_subtitle_track_close(&t->subtitles[i]);
    free(t->subtitles);
    for (int i = 0; i < t->file_count; i++) {
        medley_subtitle_track_close(&t->file_tracks[i]);
        avformat_close_input(&t->files[i]);
    }
    free(t->files);
    free(t->file_tracks);
    av_frame_free(&t->decoded);
    av_frame_free(&t->picture);
    av_packet_free(&t->packet);
    av_packet_free(&t->encoded);
    avcodec_free_context(&t->video_encoder);
    if (t->out) {
        if (t->out->pb) avio_closep(&t->out->pb);
        avformat_free_context(t->out);
    }
    medley_movie_input_close(&t->in);
}

/* Flushes a re-encoded sound track: the decoder, the converter, the FIFO's remainder, the encoder. */
static int finish_sound(Transcoder *t, AudioTrack *a, char *error, size_t size) {
    if (a->copied) return 0;
    if (decode(t, a->decoder, a, NULL, error, size) < 0) return -1;
    if (a->swr && encode_sound(t, a, NULL, error, size) < 0) return -1;
    if (encode_fifo(t, a, 1, error, size) < 0) return -1;
    int r = avcodec_send_frame(a->encoder, NULL);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "encoding failed", r); return -1; }
    if (medley_output_drain(a->encoder, a->out, t->out, t->encoded, error, size) < 0) return -1;
    a->written_end = a->next_pts / (double)a->encoder->sample_rate;
    return 0;
}

/* One pass over the movie. Pass 1 decodes and encodes the picture alone into FFmpeg's null muxer
 * (nothing is written but the encoder's statistics) and hands libvpx's statistics back in
 * *stats_out; pass 0 is the whole job in one pass, pass 2 the whole job by pass 1's statistics. */
static int transcode_pass(const char *input, const char *output, const MedleyTranscodeSettings *settings,
                          MedleyTranscodeReport *report, int pass, const char *first_stats, char **stats_out,
                          char *error, size_t size) {
    Transcoder t = {0};
    t.settings = settings;
    t.report = report;
    t.pass = pass;
    t.first_pass_stats = first_stats;
    memset(report, 0, sizeof *report);
    int result = -1;
    if (!settings->video_copy && (settings->width <= 0 || settings->height <= 0 || settings->width % 2 || settings->height % 2)) {
        snprintf(error, size, "the output size %d×%d is not a positive even size", settings->width, settings->height);
        memset(&t.in, 0, sizeof t.in);
        goto done;
    }
    if (medley_movie_input_open(&t.in, input, error, size) < 0) goto done;
    /* One decoding thread, as for poster frames: with frame threads the H.264 decoder's error
     * concealment (and so its damaged-frame flags) depends on timing, and a damaged source could
     * re-encode without a word. x264's encoding, not decoding, is what takes the time here. */
    if (!settings->video_copy &&
        medley_movie_open_decoder(&t.in, t.in.video, &t.in.video_decoder, 1, error, size) < 0)
        goto done;

    const AVOutputFormat *format = pass == 1 ? av_guess_format("null", NULL, NULL) : medley_output_format(settings->container);
    if (!format) { snprintf(error, size, "FFmpeg has no muxer for .%s", settings->container); goto done; }
    int r = avformat_alloc_output_context2(&t.out, format, NULL, output);
    if (r < 0 || !t.out) { medley_ffmpeg_set_error(error, size, "cannot create the container", r); goto done; }
    int keyed = medley_output_copy_tags(t.in.format, t.out);
    keep(&t, t.in.video);
    if (settings->video_copy) {
        if (medley_stream_copy_open(&t.video_copy, t.in.format, t.in.format->streams[t.in.video], t.out,
                                    settings->container, error, size) < 0)
            goto done;
    } else if (open_video_encoder(&t, error, size) < 0) {
        goto done;
    }
    if (!settings->video_copy && (settings->deinterlace || settings->tonemap || settings->burn_subtitle > 0)) {
        MedleyPictureFilterSpec spec = {settings->deinterlace, settings->tonemap, settings->ten_bit,
                                        settings->burn_subtitle > 0 ? input : NULL, settings->burn_subtitle - 1};
        if (medley_picture_filter_open(&t.filter, t.in.format->streams[t.in.video], t.in.video_decoder, &spec, error,
                                       size) < 0)
            goto done;
        t.filtered = av_frame_alloc();
        if (!t.filtered) { snprintf(error, size, "out of memory"); goto done; }
    }
    if (pass != 1 && open_audio_tracks(&t, error, size) < 0) goto done;
    if (pass != 1 && open_subtitles_and_attachments(&t, error, size) < 0) goto done;
    if (pass != 1 && open_subtitle_files(&t, error, size) < 0) goto done;
    if (pass != 1 && settings->chapters && t.in.format->nb_chapters > 0) {
        int64_t duration = t.in.format->duration != AV_NOPTS_VALUE ? t.in.format->duration : 0;
        int written = medley_output_copy_chapters(t.in.format, t.out, duration, report);
        if (written < 0) { snprintf(error, size, "out of memory"); goto done; }
        report->chapters_written = written;
    }
    t.origin_video = av_rescale_q(medley_container_start(t.in.format), AV_TIME_BASE_Q,
                                  t.in.format->streams[t.in.video]->time_base);
    t.last_video_pts = -1;
    t.decoded = av_frame_alloc();
    t.packet = av_packet_alloc();
    t.encoded = av_packet_alloc();
    if (!t.decoded || !t.packet || !t.encoded) { snprintf(error, size, "out of memory"); goto done; }

    if (!(format->flags & AVFMT_NOFILE)) {
        r = avio_open(&t.out->pb, output, AVIO_FLAG_WRITE);
        if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot create the file", r); goto done; }
    }
    AVDictionary *options = NULL;
    /* Tags the MP4 atoms cannot hold as they are (make, model, com.apple.quicktime.*, a location
     * the `loci` atom would reparse) need the QuickTime keys list, which holds every tag verbatim. */
    if (strcmp(format->name, "mp4") == 0 || strcmp(format->name, "mov") == 0)
        av_dict_set(&options, "movflags", keyed ? "+faststart+use_metadata_tags" : "+faststart", 0);
    r = avformat_write_header(t.out, &options);
    av_dict_free(&options);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot write the header", r); goto done; }
    if (write_subtitle_files(&t, error, size) < 0) goto done;

    int retries = 0;
    for (;;) {
        r = medley_input_read(t.in.format, t.packet, &retries, error, size);
        if (r < 0) goto done;
        if (r == 0) break; /* the end, or where a truncated file stops */
        int status = 0, index = t.packet->stream_index;
        AudioTrack *sound = NULL;
        if (index == t.in.video && settings->video_copy) {
            report->video_frames++;
            status = medley_stream_copy_write(&t.video_copy, t.out, t.packet, report, &report->video_end, error, size);
        } else if (index == t.in.video) {
            status = decode(&t, t.in.video_decoder, NULL, t.packet, error, size);
        } else if ((sound = audio_track(&t, index)) && sound->copied) {
            status = medley_stream_copy_write(&sound->copy, t.out, t.packet, report, &sound->written_end, error, size);
            if (sound->written_end > report->audio_end) report->audio_end = sound->written_end;
        } else if (sound) {
            status = decode(&t, sound->decoder, sound, t.packet, error, size);
        } else {
            for (int i = 0; i < t.subtitle_count; i++) {
                if (t.subtitles[i].in->index != index) continue;
                status = medley_subtitle_track_write(&t.subtitles[i], t.out, t.packet, error, size);
                break;
            }
        }
        av_packet_unref(t.packet);
        if (status < 0) goto done;
    }
    if (settings->video_copy) {
        report->written_video_end = report->video_end;
    } else {
        if (decode(&t, t.in.video_decoder, NULL, NULL, error, size) < 0) goto done;
        if (t.filter && filter_picture(&t, NULL, error, size) < 0) goto done;
        if (report->video_frames == 0) { snprintf(error, size, "no video frame could be decoded"); goto done; }
        if (encode_picture(&t, NULL, error, size) < 0) goto done;
    }
    for (int i = 0; i < t.audio_count; i++)
        if (finish_sound(&t, &t.audio[i], error, size) < 0) goto done;
    for (int i = 0; i < t.subtitle_count; i++) report->subtitle_packets_skipped += t.subtitles[i].damaged;
    for (int i = 0; i < t.file_count; i++) report->subtitle_packets_skipped += t.file_tracks[i].damaged;
    if (t.audio_count > 0) {
        report->written_audio_end = t.audio[0].written_end;
        report->audio_samples = t.audio[0].samples;
    }
    r = av_write_trailer(t.out);
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); goto done; }
    r = t.out->pb ? avio_closep(&t.out->pb) : 0;
    if (r < 0) { medley_ffmpeg_set_error(error, size, "cannot finish the file", r); goto done; }
    if (pass == 1 && stats_out && t.video_encoder && t.video_encoder->stats_out) {
        *stats_out = strdup(t.video_encoder->stats_out);
        if (!*stats_out) { snprintf(error, size, "out of memory"); goto done; }
    }
    result = 0;
done:
    transcoder_free(&t);
    return result;
}

int medley_movie_transcode(const char *input, const char *output, const MedleyTranscodeSettings *settings,
                           MedleyTranscodeReport *report, char *error, size_t size) {
    av_log_set_level(AV_LOG_QUIET);
    if (settings->passes < 2 || settings->video_copy)
        return transcode_pass(input, output, settings, report, 0, NULL, NULL, error, size);
    MedleyTranscodeReport first;
    char *stats = NULL;
    int r = transcode_pass(input, output, settings, &first, 1, NULL, &stats, error, size);
    if (r == 0) r = transcode_pass(input, output, settings, report, 2, stats, NULL, error, size);
    free(stats);
    return r;
}
