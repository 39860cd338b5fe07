/*
 * medley_ffmpeg.h — the audio half of the C surface Medley's Swift code sees of FFmpeg's
 * libraries (movies are in medley_movie.h).
 *
 * Interleaved float frames in and out: an encoder that writes a container
 * (M4A/MP4 with AAC or ALAC, CAF with IMA4, Ogg with Opus, MP3) and a decoder that reads the
 * first audio stream of any file FFmpeg opens. FFmpeg's error macros and sample-format zoo stay
 * in the C files. Errors are written as text into the caller's buffer.
 *
 * One C file per mechanism; each section below names its file (medley_ffmpeg_internal.h holds what
 * the files share: the one error writer, the one open of an input).
 */
#ifndef MEDLEY_FFMPEG_H
#define MEDLEY_FFMPEG_H

#include <stddef.h>
#include <stdint.h>

typedef struct MedleyEncoder MedleyEncoder;
typedef struct MedleyDecoder MedleyDecoder;

/* ---- medley_error.c: error codes, kept per thread ---- */

/* The FFmpeg code (a negative AVERROR; AVERROR(ENOSPC) is a full disk) behind the last error this
 * thread wrote into an error buffer, or 0 when that error was words only; reading it clears it. An
 * encoder thread's failure is handed on with its code. */
int medley_ffmpeg_take_error_code(void);
/* Records `code` as this thread's last error code (the movie shim's errors too). */
void medley_ffmpeg_note_error_code(int code);

/* ---- medley_encoder.c: the audio encoder and its thread ---- */

/* Opens `path` for writing with the muxer `format` ("ipod" for .m4a, "caf", "ogg", "mp3") and
 * the encoder `codec` ("aac", "alac", "adpcm_ima_qt", "libopus", "libmp3lame"). bit_rate in
 * bits/s (0: the encoder's default); bits_per_sample for lossless codecs (16 or 24, 0: 16). */
MedleyEncoder *medley_encoder_open(const char *path, const char *format, const char *codec, int sample_rate,
                                   int channels, int64_t bit_rate, int bits_per_sample, char *error, size_t size);
/* Moves the encoding onto a thread of its own: from now on `medley_encoder_write` copies each block
 * into a small queue (it waits while 4 blocks are queued) and returns; the thread encodes them in
 * order, so the packets are the same as without it. An encoding error comes back from a later
 * write or from finish. Returns 0, or −1 if no thread could be started (encoding stays on the
 * caller's thread). */
int medley_encoder_start_thread(MedleyEncoder *encoder);
/* Encodes `frames` interleaved float frames. Returns 0, or −1 with `error` set. */
int medley_encoder_write(MedleyEncoder *encoder, const float *samples, int frames, char *error, size_t size);
/* Flushes the encoder, writes the trailer and closes the file. Returns 0 or −1. */
int medley_encoder_finish(MedleyEncoder *encoder, char *error, size_t size);
/* Frees everything (also after a failure; the file may be partial — the caller deletes it). */
void medley_encoder_free(MedleyEncoder *encoder);

/* ---- medley_probe.c: which kinds of stream a file holds ---- */

/* Which kinds of stream `path` holds, by libavformat: a video stream that is not attached cover
 * art, an audio stream. Returns 0, or −1 when libavformat cannot open or read it. */
int medley_probe_streams(const char *path, int *has_video, int *has_audio);

/* ---- medley_decoder.c: the audio decoder ---- */

/* Opens the first audio stream of `path`. */
MedleyDecoder *medley_decoder_open(const char *path, char *error, size_t size);
/* Sample rate, channels, and frames when the container knows the duration (else 0). */
void medley_decoder_info(const MedleyDecoder *decoder, int *sample_rate, int *channels, int64_t *frames,
                         const char **codec_name);
/* The stored depth of a lossless stream (FLAC, ALAC, PCM): bits per sample, and whether the
 * samples are floating point. 0 bits for lossy codecs. */
void medley_decoder_depth(const MedleyDecoder *decoder, int *bits, int *is_float);
/* Whether the frame count of medley_decoder_info is the stream's own (FLAC's STREAMINFO, MP4's
 * track duration), not an estimate from the bit rate. */
int medley_decoder_count_is_stated(const MedleyDecoder *decoder);
/* libavformat's name for the container ("flac", "mp3", "wav", "mov,mp4,m4a,3gp,3g2,mj2", …). */
const char *medley_decoder_container(const MedleyDecoder *decoder);
/* Packets or frames so far that the decoder rejected as damaged and that were skipped (decoding
 * goes on with the next, as ffmpeg's does). */
int medley_decoder_damaged(const MedleyDecoder *decoder);
/* Reads up to max_frames interleaved float frames. Returns the count, 0 at the end, −1 on error. */
int medley_decoder_read(MedleyDecoder *decoder, float *samples, int max_frames, char *error, size_t size);
void medley_decoder_free(MedleyDecoder *decoder);

#endif
