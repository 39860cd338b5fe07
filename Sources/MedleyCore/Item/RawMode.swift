/// `ingest.raw`: how a camera RAW file becomes a picture.
public enum RawMode: String, Sendable, CaseIterable {
    /// Demosaic the sensor's data with the camera's white balance and colour matrix (LibRaw, as `dcraw_emu -w`).
    case develop
    /// The largest JPEG the camera embedded, as it is: fast, and what the camera showed.
    case preview
}
