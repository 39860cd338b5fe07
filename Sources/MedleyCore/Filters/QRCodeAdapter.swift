import MedleyFilters
import MedleyMedia

/// CIQRCodeGenerator's encoder: MedleyFilters imports no C, so graphs hand their QR filters this
/// adapter over libqrencode (`MedleyMedia.QRCode`).
struct QRCodeAdapter: QRCodeEncoding {
    func modules(for message: [UInt8], level: QRCorrectionLevel) -> ModuleMatrix? {
        let levels: [QRCorrectionLevel: QRCode.Level] = [.L: .low, .M: .medium, .Q: .quartile, .H: .high]
        guard let level = levels[level], let symbol = try? QRCode.modules(message, level: level) else { return nil }
        return ModuleMatrix(width: symbol.side, height: symbol.side, dark: symbol.dark)
    }
}
