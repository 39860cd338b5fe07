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

    /// Working value → stored value (0…1). Input is clamped to 0…1 first.
    @inlinable public func encode(_ v: Float) -> Float {
        let x = min(max(v, 0), 1)
        switch self {
        case .none: return x
        case .sRGB: return x <= 0.0031308 ? x * 12.92 : 1.055 * powf(x, 1 / 2.4) - 0.055
        }
    }
}
