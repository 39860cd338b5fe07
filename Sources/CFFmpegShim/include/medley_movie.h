/*
 * medley_movie.h — movies through libavformat/libavcodec/libswscale/libswresample: probe a file,
 * decode the frame shown at a time as RGB, re-encode (H.264, HEVC, AV1, VP9; MP4, MOV, Matroska,
 * WebM), copy streams into another container. FFmpeg's macros and
 * structs stay in the C files. Errors are written as text into the caller's buffer (and their
 * FFmpeg code kept per thread: medley_ffmpeg_take_error_code in medley_ffmpeg.h).
 *
 * One C file per mechanism; each section below names its file. Opening the input, the choice of
 * streams and their decoders are medley_input.c's, shared by all of them.
 */
#ifndef MEDLEY_MOVIE_H
#define MEDLEY_MOVIE_H

#include <stddef.h>
#include <stdint.h>

/* ---- medley_probe.c: a movie's headers ---- */

/* What medley_movie_probe reads. Times in seconds; text fields are NUL-terminated. */
typedef struct MedleyMovieInfo {
    double duration;            /* the container's duration (ffprobe format.duration); 0 if unknown */
    double start_time;          /* the container's first timestamp (format.start_time) */
    int width, height;          /* stored (coded, cropped) picture size of the video stream */
    int sar_num, sar_den;       /* pixel aspect ratio; 0/1 when unknown */
    int frame_rate_num, frame_rate_den; /* avg_frame_rate, else r_frame_rate; 0/1 when unknown */
    int64_t bit_rate;           /* whole-file bits/s (format.bit_rate); 0 if unknown */
    int rotation;               /* clockwise degrees to display: 0, 90, 180 or 270 */
    int has_display_matrix;     /* whether rotation came from a display matrix (else the rotate tag) */
    int sample_rate, channels;  /* of the chosen audio stream; 0 without one */
    int video_stream;           /* the index of the video stream described */
    int transfer;               /* AVColorTransferCharacteristic as the stream's headers state it (16 PQ, 18 HLG) */
    int audio_tracks, subtitle_tracks, chapters; /* how many of each the file holds */
    char audio_languages[128];  /* the audio and subtitle tracks' languages, each once, in file order, */
    char subtitle_languages[128]; /* separated by ", " ("" when none is tagged) */
    int field_order;            /* AVFieldOrder as the stream's headers state it: 0 unknown, 1 progressive,
                                   2–5 interlaced (top/bottom coded and displayed first) */
    char format[64];            /* the demuxer's names, e.g. "mov,mp4,m4a,3gp,3g2,mj2" */
    char video_codec[32];       /* codec names as ffprobe prints them: "h264", "vp9", … */
    char audio_codec[32];       /* "" without an audio stream */
    char pixel_format[32];      /* "yuv420p", … */
} MedleyMovieInfo;

/* Called once per container-level tag, in the container's order. */
typedef void (*MedleyMovieTagVisitor)(void *context, const char *key, const char *value);

/* Opens `path`, reads its headers and picks the video stream (the first that is not cover art,
 * preferring the default one) and the best audio stream. Returns 0, or −1 with `error` set. */
int medley_movie_probe(const char *path, MedleyMovieInfo *info, MedleyMovieTagVisitor visit, void *context,
                       char *error, size_t size);

/* One stream of a movie, as medley_movie_streams lists it. */
typedef struct MedleyStreamInfo {
    int index;            /* stream index in the file */
    int kind;             /* 0 video, 1 audio, 2 subtitle, 3 attachment, 4 data, 5 other */
    char codec[32];       /* as ffprobe's codec_name */
    char language[16];    /* the language tag, "" when none */
    char title[128];      /* the title tag, "" when none */
    int is_default, is_forced, is_hearing_impaired, is_attached_pic, is_text; /* is_text: a text subtitle */
    int channels, sample_rate;
    int width, height;
    int64_t bit_rate;     /* the stream's bits/s as the container states it; 0 when unknown */
    int64_t attached_bytes; /* an attachment's size (its file is the stream's extradata) */
} MedleyStreamInfo;
typedef void (*MedleyStreamVisitor)(void *context, const MedleyStreamInfo *stream);
/* Opens `path` and visits each stream in file order (medley_subtitle.c); *chapters gets the chapter count. Returns 0 or
 * −1 with `error` set. */
int medley_movie_streams(const char *path, MedleyStreamVisitor visit, void *context, int *chapters, char *error,
                         size_t size);

/* ---- medley_frames.c: the frame at a time ---- */

/* Decodes the first frame whose timestamp is at or after `seconds` from the container's start
 * (what `ffmpeg -ss seconds -i path -frames:v 1` returns). When the stream ends first, the last
 * frame is returned if it is still on screen at `seconds`, else it fails. Pixels are 8-bit RGB,
 * rows packed (stride width·3), in stored orientation (no rotation applied). Returns a malloc'd
 * buffer the caller frees with free(), or NULL with `error` set. `time` is the frame's timestamp
 * in seconds from the container's start; `rotation` the clockwise degrees it is displayed turned. */
uint8_t *medley_movie_frame_rgb(const char *path, double seconds, int *width, int *height, double *time,
                                int *rotation, char *error, size_t size);

/* ---- medley_clip.c: a stretch as evenly timed pictures ---- */

/* Called with each picture of a clip: packed 8-bit RGB (width·3 bytes a row), valid during the call.
 * Returns 0 to go on, anything else to stop. */
typedef int (*MedleyClipVisitor)(void *context, const uint8_t *rgb, int width, int height, int64_t index);

/* Decodes `duration` seconds from `from` (container start + from, as `ffmpeg -ss from -t duration -i`)
 * and hands `visit` one picture every 1/fps s (the frame on screen then, as FFmpeg's fps filter picks
 * it), scaled to width × height with Lanczos, stored orientation (`rotation`: the clockwise degrees it
 * is displayed turned). Returns the pictures handed over, or −1 with `error` set. */
int medley_movie_clip(const char *path, double from, double duration, double fps, int width, int height,
                      MedleyClipVisitor visit, void *context, int *rotation, char *error, size_t size);

/* ---- medley_transcode.c: re-encoding (H.264 + AAC in MP4 unless the settings say) ---- */

/* How medley_movie_transcode encodes. Sizes are in stored orientation. */
typedef struct MedleyTranscodeSettings {
    int width, height;                   /* output picture size (even) */
    int crop_x, crop_y, crop_width, crop_height; /* the source rectangle scaled to width × height */
    int sar_num, sar_den;                /* output pixel aspect ratio (1/1 for square pixels) */
    int crf;                             /* libx264 constant rate factor */
    int64_t max_bit_rate;                /* VBV cap in bits/s; 0: none */
    int64_t buffer_bits;                 /* VBV buffer in bits; 0: none */
    int gop;                             /* frames between keyframes; 1: every frame; 0: libx264's default */
    const char *x264_preset;             /* "medium", "fast", … */
    int64_t audio_bit_rate;              /* AAC bits/s */
    int audio_sample_rate;               /* AAC sample rate */
    int audio_channels;                  /* AAC channels (the source is mixed to this) */
    int rotation;                        /* clockwise degrees, written as the display matrix when the
                                            source has none of its own (a rotate tag) */
    /* Added for codecs beyond H.264 (docs/movies.md); zeroed fields keep libx264 + AAC in MP4. */
    const char *video_encoder;           /* "libx264" (NULL), "libx265", "libsvtav1", "libaom-av1", "libvpx-vp9" */
    const char *video_profile;           /* the encoder's profile option ("high"); NULL: its default */
    const char *container;               /* the output's extension ("mp4" when NULL, "mkv", "webm", "mov") */
    int fps_num, fps_den;                /* constant output frame rate (frames dropped or repeated as
                                            ffmpeg -r does); 0: the source's timestamps kept */
    int audio_copy;                      /* 1: the audio packets copied, not re-encoded */
    const char *audio_encoder;           /* "aac" (NULL), "libopus", "libmp3lame", "flac", "alac", "libvorbis" */
    /* Tracks (docs/movies.md#tracks): the source streams kept beside the picture, in the order
     * given, each with its tags (language, title, …) and dispositions. The caller chooses them
     * (medley_movie_streams lists them); an empty list keeps none of that kind. */
    const int *audio_streams;            /* audio stream indexes, each re-encoded or copied as above */
    int audio_stream_count;
    const int *subtitle_streams;         /* copied, or text converted to what the container holds */
    int subtitle_stream_count;
    const int *attachment_streams;       /* Matroska attachments (fonts); only Matroska holds them */
    int attachment_stream_count;
    int chapters;                        /* 1: the chapters copied with their titles */
    int video_copy;                      /* 1: the picture's packets copied (videoCodec: copy); the
                                            picture settings above are then unused */
    int ten_bit;                         /* 1: 10-bit 4:2:0 (HEVC Main 10, VP9 profile 2, AV1 Main) */
    int64_t video_bit_rate;              /* average video bits/s instead of `crf`; 0: constant quality */
    int passes;                          /* 2: a first pass writes only the encoder's statistics, the
                                            second spends the bit rate by them (needs video_bit_rate) */
    const char *stats_path;              /* where libx264/libx265 keep the first pass's statistics
                                            (they write the path and path.mbtree / .cutree) */
    int deinterlace;                     /* 1: every picture through bwdif (one frame out per frame in) */
    const char *tonemap;                 /* a tonemap curve ("hable", "mobius", "reinhard", "clip"): PQ and
                                            HLG pictures become BT.709 SDR; NULL: the colours kept */
    const char *master_display;          /* HDR kept (HEVC): x265's master-display string; NULL: none */
    int max_cll, max_fall;               /* HDR kept: content light levels (cd/m²); 0: none */
    const double *mastering;             /* HDR kept: the mastering display the frames carry (CIE x, y of
                                            green, blue, red, white; peak and black cd/m²: ten numbers),
                                            written into the container when the source's container has
                                            none; NULL: none */
    int burn_subtitle;                   /* N > 0: the input's Nth subtitle stream (counted among its
                                            subtitle streams from 1; a text one) drawn onto the picture
                                            through libass; 0: none */
    const char *const *subtitle_files;   /* SRT/VTT/ASS files muxed in as subtitle tracks after the kept ones */
    const char *const *subtitle_file_languages; /* each file's language tag ("" for none) */
    const int *subtitle_file_dispositions; /* each file's track flags (1 forced, 2 hearing impaired, 4 default) */
    int subtitle_file_count;
} MedleyTranscodeSettings;

/* Written by medley_movie_transcode. */
typedef struct MedleyTranscodeReport {
    int64_t video_frames;                /* frames encoded */
    int64_t audio_samples;               /* samples per channel encoded */
    int decode_errors;                   /* packets the decoders rejected and skipped */
    int damaged_frames;                  /* video frames the decoder concealed errors in */
    double video_end, audio_end;         /* seconds from the container's start where the decoded
                                            pictures and sound end; 0 when none */
    int repeated_frames;                 /* decoded pictures whose timestamp repeats or goes back, re-timed */
    int fixed_packets;                   /* copied packets whose non-monotonic DTS was moved on, as
                                            ffmpeg's muxing does */
    double largest_gap, gap_at;          /* the longest jump between two pictures' timestamps beyond
                                            their duration (seconds), and where it starts */
    double written_video_end, written_audio_end; /* where the written streams end (seconds; the sound's
                                            of the first audio track kept) */
    int chapters_written;                /* chapters the output holds */
    int subtitle_packets_skipped;        /* subtitle packets that could not be read or converted */
    int kept[64];                        /* the source stream behind each output stream, in the
                                            output's order (the first 64) */
    int kept_count;
    char notes[4096];                    /* what could not be kept, one line each, '\n'-separated:
                                            "audio stream 3 (truehd): …; not kept" */
} MedleyTranscodeReport;

/* Re-encodes the video stream (settings->video_encoder, yuv420p; or copies its packets) and the
 * chosen audio streams (settings->audio_encoder, or their packets copied), with the chosen subtitle
 * and attachment streams and the chapters, into the container settings->container names (an MP4
 * moov first), with the container tags, each stream's tags and dispositions and the display matrix
 * copied. Pictures whose timestamp repeats or goes back are re-timed (report->repeated_frames). A
 * track that cannot be kept (a codec FFmpeg cannot decode, a subtitle the container cannot hold)
 * is left out with a line in report->notes; the item fails only when sound was asked for and no
 * audio track could be kept. Returns 0, or −1 with `error` set; the output may then be partial,
 * and the caller deletes it. */
int medley_movie_transcode(const char *input, const char *output, const MedleyTranscodeSettings *settings,
                           MedleyTranscodeReport *report, char *error, size_t size);

/* ---- medley_remux.c: stream copy into another container ---- */

/* Copies the packets of `input`'s video stream and best audio stream (audio_only: its best audio
 * stream alone) into a container chosen by `container` (an extension: "mkv", "mp4", "m4a", …),
 * with the container tags, as `ffmpeg -i in -map 0:v:0 -map 0:a:0? -c copy out` (or `-vn -acodec
 * copy`). Timestamps start at 0 (the container's start subtracted); a non-monotonic DTS is moved
 * on (counted in report->fixed_packets). Fails without the stream asked for, or when the container
 * cannot hold a codec. Returns 0, or −1 with `error` set; the caller deletes a partial output. */
int medley_movie_remux(const char *input, const char *output, const char *container, int audio_only,
                       MedleyTranscodeReport *report, char *error, size_t size);

/* ---- medley_vfilter.c: what a movie's pictures say ---- */

/* What medley_movie_analyze finds. Colour codes are FFmpeg's (the H.273 numbers). */
typedef struct MedleyMovieAnalysis {
    int width, height;                /* the first sampled picture's size (the crop's frame) */
    int sampled_frames;               /* decoded frames looked at */
    int flagged_interlaced;           /* of them, frames the decoder marks interlaced (coded as fields) */
    int flagged_top_first;            /* of those, marked top field first */
    int idet_tff, idet_bff, idet_progressive, idet_undetermined; /* libavfilter idet's multi-frame verdicts,
                                         one a sampled frame; its field order is what the pixels show */
    int crop_x, crop_y, crop_width, crop_height; /* the picture inside black bars, safe for every sampled
                                         frame (the union of their pictures), even offsets and sizes,
                                         rounded outwards; the whole frame when there are no bars or
                                         the pixels cannot be read (RGB, big-endian, float formats) */
    int black_frames;                 /* sampled frames dark all over (fades), left out of the crop */
    int transfer;                     /* AVColorTransferCharacteristic: the stream's, else the first frame's
                                         (1 BT.709, 16 PQ / SMPTE 2084, 18 HLG / ARIB STD-B67, 2 unspecified) */
    int primaries;                    /* AVColorPrimaries, likewise (1 BT.709, 9 BT.2020) */
    int matrix;                       /* AVColorSpace, likewise (1 BT.709, 9 BT.2020 non-constant) */
    int range;                        /* AVColorRange, likewise (1 limited, 2 full, 0 unspecified) */
    int bit_depth;                    /* of the decoded pixel format's luma */
    int has_mastering_display;        /* mastering display metadata in the stream or a sampled frame */
    double master_primaries[6];       /* its primaries as CIE 1931 x, y in x265's order: green, blue, red */
    double master_white[2];           /* its white point x, y */
    double master_max_luminance, master_min_luminance; /* cd/m² */
    char master_display[96];          /* x265's master-display option, "G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min)"
                                         with x, y in 0.00002 and L in 0.0001 cd/m² (the SEI's integers);
                                         "" unless primaries, white point and luminance are all known */
    int has_content_light;            /* content light level in the stream or a sampled frame */
    int max_cll, max_fall;            /* cd/m² (x265's max-cll=max_cll,max_fall) */
    int has_hdr10_plus;               /* HDR10+ dynamic metadata in the stream or a sampled frame */
    int dolby_vision_profile;         /* the stream's Dolby Vision configuration profile; 0 without one */
} MedleyMovieAnalysis;

/* Decodes `samples` stretches (1 to 100) at the middles of equal parts of the movie (a seek to the
 * keyframe before each, or decoding on when that keyframe was passed already, then up to 16
 * consecutive undamaged frames: idet judges a frame with its neighbours), runs libavfilter's idet over each stretch, finds the black bars in every sampled frame,
 * and reads the colour description and HDR metadata. Without a known duration the stretches follow
 * each other from the start. Returns 0, or −1 with `error` set. */
int medley_movie_analyze(const char *path, int samples, MedleyMovieAnalysis *analysis, char *error, size_t size);

/* ---- medley_subtitle.c: subtitles as files ---- */

/* Writes the `nth` subtitle stream (0-based among subtitle streams) of `input` as a file at `output`
 * in `format` ("srt", "vtt" or "ass"): the text identical to `ffmpeg -i input -map 0:s:N output.srt`
 * (decoded and re-encoded as the CLI does, times from the container's start). Fails ("… is a
 * picture subtitle; it cannot be written as text") for bitmap subtitles. A cue that cannot be
 * decoded or encoded is skipped. Returns the number of cues written, or −1 with `error` set (the
 * caller deletes a partial output). */
int medley_movie_extract_subtitle(const char *input, int nth, const char *output, const char *format, char *error,
                                  size_t size);

#endif
