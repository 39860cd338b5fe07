/* What CFFmpegShim's files share with each other (private to CFFmpegShim; the Swift side sees
 * include/medley_ffmpeg.h and include/medley_movie.h only). Each section names the file that
 * defines it. */
#ifndef MEDLEY_FFMPEG_INTERNAL_H
#define MEDLEY_FFMPEG_INTERNAL_H

#include "medley_ffmpeg.h"
#include "medley_movie.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

/* ---- medley_error.c: an error's text, and its code kept for the thread ---- */

/* Writes "what: FFmpeg's words for code" (just `what` when code is 0) into `error` and keeps
 * `code` as the thread's last error code (medley_ffmpeg_take_error_code). */
void medley_ffmpeg_set_error(char *error, size_t size, const char *what, int code);

/* ---- medley_input.c: opening a file for reading, and a movie's streams ---- */

/* A damaged file makes decoders reject packets; FFmpeg's CLI skips them, and so does Medley,
 * up to this many per file before giving up on it. */
#define MAX_DECODE_ERRORS 100
/* av_read_frame returns EAGAIN only for live sources; a file that keeps saying it is stuck. */
#define MAX_READ_RETRIES 1000

/* The one way a file is opened for reading: the demuxer (its failure is `cannot_open`: FFmpeg's
 * words), then the stream parameters ("cannot read the streams: …"). On failure *format is closed
 * and NULL, and the error is written unless `error` is NULL (then no code is kept either).
 * Returns 0 or FFmpeg's negative code. */
int medley_input_open(AVFormatContext **format, const char *path, const char *cannot_open, char *error, size_t size);
/* The next packet of `format` into `packet`: 1, or 0 at the end (or where a truncated file stops,
 * as in FFmpeg's CLI); −1 with `error` set when the file keeps saying EAGAIN (*retries counts
 * them over the whole read). */
int medley_input_read(AVFormatContext *format, AVPacket *packet, int *retries, char *error, size_t size);
/* The first video stream that is not cover art, preferring one marked default; −1 without one. */
int medley_input_pick_video(const AVFormatContext *format);

/* A movie opened for decoding: its video stream and best audio stream, and their decoders once
 * opened. */
typedef struct MedleyMovieInput {
    AVFormatContext *format;
    int video, audio;          /* stream indexes; audio is −1 without one */
    AVCodecContext *video_decoder, *audio_decoder;
} MedleyMovieInput;

/* Opens `path` as a movie: fails without a video stream or without its picture size. Returns 0,
 * or −1 with `error` set; either way medley_movie_input_close frees it. */
int medley_movie_input_open(MedleyMovieInput *in, const char *path, char *error, size_t size);
/* Decodes the next frame of `in`'s video stream into `frame` (medley_frames.c): 1, 0 at the end, −1 with
 * `error` set. A read error counts as the end, as in FFmpeg's CLI (a truncated file is decoded up to where
 * it stops); rejected packets are skipped up to MAX_DECODE_ERRORS. Posters, frames and clips share it. */
int medley_movie_next_video_frame(MedleyMovieInput *in, AVPacket *packet, AVFrame *frame, int *flushing, int *errors,
                                  char *error, size_t size);
void medley_movie_input_close(MedleyMovieInput *in);
/* Opens a decoder for `stream`. threads: 0 lets FFmpeg choose (one per core), 1 decodes on the
 * calling thread. Returns 0, or −1 with `error` set. */
int medley_movie_open_decoder(MedleyMovieInput *in, int stream, AVCodecContext **decoder, int threads, char *error,
                              size_t size);

/* The container's first timestamp in AV_TIME_BASE units (0 when unknown). */
int64_t medley_container_start(const AVFormatContext *format);
/* How long `frame` is shown, in the stream's time base (from the frame, else the frame rate, else 1). */
int64_t medley_frame_duration(const AVFrame *frame, const AVStream *stream);
/* Whether the decoder says a frame is damaged: concealed errors (decode_error_flags) or missing
 * references (AV_FRAME_FLAG_CORRUPT). */
int medley_frame_is_damaged(const AVFrame *frame);
/* The display matrix (or, in older files, the `rotate` tag) as clockwise quarter turns in degrees;
 * `matrix_out` (when not NULL) gets the display matrix, or NULL without one. */
int medley_displayed_rotation(const AVStream *stream, const int32_t **matrix_out);

/* ---- medley_output.c: writing ---- */

/* Receives every packet `encoder` has ready into `packet` and writes it to `out` as `stream`'s, its
 * timestamps in the stream's time base. Returns 0 when the encoder wants more (or has ended), −1
 * with `error` set ("encoding failed: …", "cannot write: …"). */
int medley_output_drain(AVCodecContext *encoder, AVStream *stream, AVFormatContext *out, AVPacket *packet,
                        char *error, size_t size);

/* ---- medley_remux.c: packets copied from one stream into another ---- */

/* One copied stream: its source, where it goes, the source timestamp that becomes 0, and the last
 * DTS written (to move a non-monotonic one on, as ffmpeg's muxing does). */
typedef struct MedleyStreamCopy {
    const AVStream *in;
    AVStream *out;
    int64_t origin;      /* in the source's time base */
    int64_t last_dts;    /* in the output's time base */
    int started;
} MedleyStreamCopy;

/* A new output stream holding `in`'s codec as it is (its tag kept when the container knows it),
 * its language and display matrix. Fails ("the .webm container cannot hold h264") when the
 * container cannot. */
int medley_stream_copy_open(MedleyStreamCopy *copy, const AVFormatContext *input, const AVStream *in,
                            AVFormatContext *out, const char *container, char *error, size_t size);
/* Writes one source packet (consumed) as the copy's; *end (seconds) is moved to where it ends. */
int medley_stream_copy_write(MedleyStreamCopy *copy, AVFormatContext *out, AVPacket *packet,
                             MedleyTranscodeReport *report, double *end, char *error, size_t size);
/* The muxer for an extension ("mkv", "m4a", …); NULL when FFmpeg has none. */
const AVOutputFormat *medley_output_format(const char *container);
/* Copies the input's container tags, but those describing its structure; returns whether any needs
 * an MP4's QuickTime keys list (use_metadata_tags) to be held verbatim. */
int medley_output_copy_tags(const AVFormatContext *input, AVFormatContext *out);
/* Copies a stream's tags (language, title, handler, …) and dispositions onto its output stream, but
 * those that describe the source's encoding rather than the track: Matroska's statistics (BPS,
 * DURATION, NUMBER_OF_FRAMES, NUMBER_OF_BYTES, _STATISTICS_*), `encoder` and `rotate` (the display
 * matrix is written instead). Cover art's disposition is not copied. */
void medley_output_copy_stream_tags(const AVStream *in, AVStream *out);
/* Copies the input's chapters with their titles, the container start subtracted; a chapter that
 * starts at or past `duration` (AV_TIME_BASE units; ≤ 0: unknown) is left out and one whose end
 * runs past it is cut there, each with a line in report->notes. Returns the chapters written, or −1
 * (out of memory). */
int medley_output_copy_chapters(const AVFormatContext *input, AVFormatContext *out, int64_t duration,
                                MedleyTranscodeReport *report);
/* Appends one line to report->notes (cut at its size). */
void medley_report_note(MedleyTranscodeReport *report, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes the display matrix on `stream` (a copy of `matrix`, nine int32). Returns 0 or −1. */
int medley_output_set_matrix(AVStream *stream, const int32_t *matrix);

/* ---- medley_vfilter.c: the transcoder's picture filter (libavfilter) ---- */

/* What the picture filter does to every decoded picture before the transcoder's crop and scale. */
typedef struct MedleyPictureFilterSpec {
    int deinterlace;          /* 1: bwdif (mode=send_frame: one frame out per frame in, parity auto, deint=all) */
    const char *tonemap;      /* NULL: none; else tonemap's curve ("hable", "mobius", "reinhard", "clip",
                                 "linear", "gamma"): PQ and HLG pictures become BT.709 SDR through
                                 zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,
                                 tonemap=tonemap=<curve>:desat=0,zscale=t=bt709:m=bt709:r=tv; pictures
                                 with another transfer pass unchanged */
    int ten_bit;              /* 1: yuv420p10le out, 0: yuv420p */
    const char *subtitles_file; /* burned in: the file holding the text subtitle (libass through the
                                   subtitles filter, drawn after tone mapping); NULL: none */
    int subtitles_stream;     /* which of the file's subtitle streams (0-based among them) */
} MedleyPictureFilterSpec;
typedef struct MedleyPictureFilter MedleyPictureFilter;

/* Sets up a filter for `stream`'s pictures; `stream` and `decoder` (may be NULL) are borrowed and
 * must outlive it. The filters are built at the first picture, and again when the pictures change
 * size or pixel format, or between HDR and SDR. A colour description a frame leaves unspecified is
 * taken from the decoder, then the stream (and for PQ/HLG, at worst, BT.2020 limited range).
 * Returns 0, or −1 with `error` set (an unknown curve; an FFmpeg without bwdif, zscale or tonemap). */
int medley_picture_filter_open(MedleyPictureFilter **filter, const AVStream *stream, const AVCodecContext *decoder,
                               const MedleyPictureFilterSpec *spec, char *error, size_t size);
/* Hands the filter one decoded picture, timed by its best_effort_timestamp in the stream's time
 * base; NULL ends the pictures (after which the last ones can be received). `frame` stays the
 * caller's (it is referenced, not consumed). Returns 0 or −1 with `error` set. */
int medley_picture_filter_send(MedleyPictureFilter *filter, AVFrame *frame, char *error, size_t size);
/* 1: a picture was written into `out` (the caller unrefs it): pts and best_effort_timestamp in the
 * stream's time base, sample aspect ratio kept, colour description of what it now is (BT.709
 * limited range after tone mapping, the HDR side data removed); 0: none ready now, or the end;
 * −1 with `error` set. */
int medley_picture_filter_receive(MedleyPictureFilter *filter, AVFrame *out, char *error, size_t size);
void medley_picture_filter_free(MedleyPictureFilter **filter);
/* A PQ or HLG picture (by its own, the decoder's or the stream's transfer) tone-mapped to BT.709
 * SDR in place (hable, as the transcoder's default), so posters, clips and sprite sheets of an HDR
 * movie are not washed out; other pictures are left as they are. *filter is opened at the first
 * HDR picture and kept for the next (the caller frees it). Returns 0, or −1 with `error` set. */
int medley_picture_tonemap_in_place(MedleyPictureFilter **filter, const AVStream *stream, const AVCodecContext *decoder,
                                    AVFrame *frame, char *error, size_t size);

/* ---- medley_subtitle.c: subtitle tracks ---- */

/* One subtitle stream of a movie's output: its packets copied as they are, or its text decoded and
 * re-encoded into the text codec the container holds. */
typedef struct MedleySubtitleTrack {
    const AVStream *in;
    AVStream *out;
    MedleyStreamCopy copy;             /* used when the packets are copied as they are */
    AVCodecContext *decoder, *encoder; /* set when the text is converted (NULL when copied) */
    int64_t origin;                    /* source timestamp that becomes 0 (container start), in->time_base */
    int converted;                     /* 1: decoded and re-encoded into another text codec */
    int damaged;                       /* packets that could not be decoded/converted and were skipped */
} MedleySubtitleTrack;

/* What the `container` (an output extension: mp4, m4v, mov, mkv, webm) does with `in`: copies the
 * packets when it holds the codec (avformat_query_codec), else converts a text subtitle
 * (AV_CODEC_PROP_TEXT_SUB: subrip, ass/ssa, webvtt, mov_text, text…) to the codec it holds: mov_text
 * in mp4/m4v/mov, webvtt in webm (mkv holds all text codecs as they are; a mov_text source becomes
 * ass there, the CLI's choice). Returns 1 when opened, 0 when the container cannot hold it in any
 * form (bitmap PGS/dvb into mp4/webm, say) with a one-line reason in `why` naming the codec and what
 * would hold it ("hdmv_pgs_subtitle is a picture subtitle .mp4 cannot hold; name the output .mkv"),
 * −1 on error (`error` set; `out` may then hold a half-made stream, and is abandoned). Copies the
 * stream's tags (language, title, …; not the source's packet statistics) and dispositions (default,
 * forced, hearing_impaired, …). medley_subtitle_track_close frees it whatever it returned. */
int medley_subtitle_track_open(MedleySubtitleTrack *track, const AVFormatContext *input, const AVStream *in,
                               AVFormatContext *out, const char *container, char *why, size_t why_size, char *error,
                               size_t size);
/* One source packet of the track (consumed/unref'd by the caller afterwards): the container start is
 * subtracted, the times rescaled to the output stream's, each cue's duration kept. A packet that
 * cannot be decoded or encoded is counted in track->damaged and skipped, not an error. Returns 0, or
 * −1 with `error` set (the muxer refused it). */
int medley_subtitle_track_write(MedleySubtitleTrack *track, AVFormatContext *out, AVPacket *packet, char *error,
                                size_t size);
void medley_subtitle_track_close(MedleySubtitleTrack *track);

#endif
