import MedleyMedia

/// `poster: {at: 1.5}` or `{at: "10%"}` (MPMoviePlayerController's initialPlaybackTime).
public struct PosterStage: Sendable, Equatable {
    public let at: PosterTime
}
