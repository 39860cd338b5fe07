#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How stored sample values relate to light, i.e. the space filters work in.
public enum Transfer: Sendable, Equatable {
    /// Stored values are sRGB-encoded; filters see linear light (Core Image's default).
    case sRGB
    /// Filters see the stored values as they are (`colorSpace: none`).
    case none

    /// Stored value (0…1) → working value.
    @inlinable public func decode(_ v: Float) -> Float {
        switch self {
        case .none: return v
        case .sRGB: return v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
        }
    }

    /// Working value → stored value (0…1). Input is clamped to 0…1 first; NaN (filter maths on extreme
    /// parameters: ∞ · 0) is stored as 0, never passed on to a conversion that would trap.
    @inlinable public func encode(_ v: Float) -> Float {
        let x = v.unitClamped
        switch self {
        case .none: return x
        case .sRGB: return x <= 0.0031308 ? x * 12.92 : 1.055 * powf(x, 1 / 2.4) - 0.055
        }
    }
}

/// Lookup tables of a transfer function, built once per process and shared by every kernel.
public final class TransferTables: Sendable {
    /// decode8[v] = decode(v / 255).
    public let decode8: [Float]
    /// decode16[v] = decode(v / 65535).
    public let decode16: [Float]
    /// encode8[i] = round(255 · encode(i / 65536)) for i in 0…65536: fine enough that the steep
    /// start of the sRGB curve stays within half a step of 8-bit output.
    public let encode8: [UInt8]

    private init(_ transfer: Transfer) {
        decode8 = (0..<256).map { transfer.decode(Float($0) / 255) }
        decode16 = (0..<65536).map { transfer.decode(Float($0) / 65535) }
        encode8 = (0...65536).map { UInt8((transfer.encode(Float($0) / 65536) * 255).rounded()) }
    }

    public static let sRGB = TransferTables(.sRGB)
    public static let none = TransferTables(.none)

    public static func of(_ transfer: Transfer) -> TransferTables {
        switch transfer {
        case .sRGB: return sRGB
        case .none: return none
        }
    }
}
