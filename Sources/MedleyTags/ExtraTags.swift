/// Tags beyond the named properties (docs/metadata.md) (ReplayGain, MusicBrainz IDs, ISRC, copyright, encoder, sort names, …),
/// named by their Vorbis comment field (upper case), and where each container keeps them.
///
/// | Vorbis field            | ID3v2.4                         | MP4                                   | CAF info              |
/// |-------------------------|---------------------------------|---------------------------------------|-----------------------|
/// | ISRC                    | TSRC                            | ----:com.apple.iTunes:ISRC            | ISRC                  |
/// | COPYRIGHT               | TCOP                            | cprt                                  | copyright             |
/// | ENCODER                 | TSSE                            | ©too                                  | encoding application  |
/// | ENCODEDBY               | TENC                            | ----:com.apple.iTunes:ENCODEDBY       | —                     |
/// | LABEL                   | TPUB                            | ----:com.apple.iTunes:LABEL           | —                     |
/// | LYRICIST                | TEXT                            | ----:com.apple.iTunes:LYRICIST        | lyricist              |
/// | CONDUCTOR, REMIXER      | TPE3, TPE4                      | ----:com.apple.iTunes:NAME            | —                     |
/// | MOOD, SUBTITLE, MEDIA   | TMOO, TIT3, TMED                | ----:com.apple.iTunes:NAME            | —                     |
/// | ORIGINALDATE, LANGUAGE  | TDOR, TLAN                      | ----:com.apple.iTunes:NAME            | —                     |
/// | TITLESORT, ARTISTSORT   | TSOT, TSOP                      | sonm, soar                            | —                     |
/// | ALBUMSORT               | TSOA                            | soal                                  | —                     |
/// | ALBUMARTISTSORT         | TSO2                            | soaa                                  | —                     |
/// | COMPOSERSORT            | TSOC                            | soco                                  | —                     |
/// | MUSICBRAINZ_TRACKID     | UFID http://musicbrainz.org     | ----:com.apple.iTunes:MusicBrainz Track Id | —                |
/// | MUSICBRAINZ_…ID         | TXXX:MusicBrainz … Id (Picard)  | ----:com.apple.iTunes:MusicBrainz … Id | —                    |
/// | any other NAME          | TXXX:NAME                       | ----:com.apple.iTunes:NAME            | —                     |
///
/// WAV and AIFF carry them in their ID3 chunk; WAV's INFO list also gets ICOP (COPYRIGHT) and
/// ISFT (ENCODER). Every value of a field is kept where the
/// container can hold several (Vorbis: repeated fields; ID3v2.4: NUL-separated; MP4: several
/// data atoms); CAF, which holds one, gets them joined with "; " and a warning. A field a
/// container has no place for is reported per item ("REPLAYGAIN_TRACK_GAIN: .caf has no field for it").
enum ExtraTags {
    /// Vorbis field → ID3v2.4 text frame.
    static let id3Frames: [String: String] = [
        "ISRC": "TSRC", "COPYRIGHT": "TCOP", "ENCODER": "TSSE", "ENCODEDBY": "TENC", "LABEL": "TPUB", "LYRICIST": "TEXT",
        "CONDUCTOR": "TPE3", "REMIXER": "TPE4", "MOOD": "TMOO", "SUBTITLE": "TIT3", "MEDIA": "TMED", "ORIGINALDATE": "TDOR",
        "LANGUAGE": "TLAN", "TITLESORT": "TSOT", "ARTISTSORT": "TSOP", "ALBUMSORT": "TSOA", "ALBUMARTISTSORT": "TSO2",
        "COMPOSERSORT": "TSOC",
    ]
    static let fieldsByID3Frame = Dictionary(uniqueKeysWithValues: id3Frames.map { ($0.value, $0.key) })

    /// Vorbis field → MP4 atom of its own.
    static let mp4Atoms: [String: String] = [
        "COPYRIGHT": "cprt", "ENCODER": "©too", "TITLESORT": "sonm", "ARTISTSORT": "soar", "ALBUMSORT": "soal",
        "ALBUMARTISTSORT": "soaa", "COMPOSERSORT": "soco",
    ]
    static let fieldsByMP4Atom = Dictionary(uniqueKeysWithValues: mp4Atoms.map { ($0.value, $0.key) })

    /// Vorbis field → CAF info key (Apple's kAFInfoDictionary names).
    static let cafKeys: [String: String] = [
        "ISRC": "ISRC", "COPYRIGHT": "copyright", "ENCODER": "encoding application", "LYRICIST": "lyricist",
    ]
    static let fieldsByCAFKey = Dictionary(uniqueKeysWithValues: cafKeys.map { ($0.value, $0.key) })

    /// The owner of the UFID frame that holds the MusicBrainz recording ID.
    static let musicBrainzOwner = "http://musicbrainz.org"

    /// MusicBrainz fields → the TXXX description and MP4 freeform name Picard writes.
    static let musicBrainzNames: [String: String] = [
        "MUSICBRAINZ_TRACKID": "MusicBrainz Track Id", "MUSICBRAINZ_ARTISTID": "MusicBrainz Artist Id",
        "MUSICBRAINZ_ALBUMID": "MusicBrainz Album Id", "MUSICBRAINZ_ALBUMARTISTID": "MusicBrainz Album Artist Id",
        "MUSICBRAINZ_RELEASEGROUPID": "MusicBrainz Release Group Id", "MUSICBRAINZ_RELEASETRACKID": "MusicBrainz Release Track Id",
        "MUSICBRAINZ_WORKID": "MusicBrainz Work Id",
    ]
    private static let fieldsByMusicBrainzName = Dictionary(uniqueKeysWithValues: musicBrainzNames.map { ($0.value.uppercased(), $0.key) })

    /// The TXXX description or MP4 freeform name for a field.
    static func userName(_ field: String) -> String { musicBrainzNames[field] ?? field }

    /// The field for a TXXX description or MP4 freeform name.
    static func field(userName name: String) -> String {
        fieldsByMusicBrainzName[name.uppercased()] ?? name.uppercased()
    }
}
