import Foundation
import MedleyKernels

/// Distortions: each output pixel shows the input at a position worked out from its own (a warp,
/// sampled bilinearly by libvips; outside the input is transparent, as Core Image's clear is).
/// Apple publishes none of their maths; each filter names the open formulation it uses.
enum DistortionGroup {
    static let filters: [FilterDefinition.Type] = [
        BumpDistortion.self,
        CircleSplashDistortion.self,
        HoleDistortion.self,
        PinchDistortion.self,
        TwirlDistortion.self,
        VortexDistortion.self,
    ]

    /// The effect's centre in Core Image's coordinates.
    static func center(_ inputs: FilterInputs) -> (x: Double, y: Double) {
        let c = inputs.vector("inputCenter") ?? [150, 150]
        return (c[0], c[1])
    }

    static let centerParameter = ParameterAttributes(
        name: "inputCenter", type: .position, displayName: "Center",
        description: "The center of the effect as x and y pixel coordinates.",
        defaultValue: .vector([150, 150]))

    /// The warp of a distortion: outside its input is transparent.
    static func warp(_ map: WarpMap, of image: FilterImage, name: String) -> FilterImage {
        .geometry(.warp(map, edges: .transparent, name: name), of: image)
    }

    /// p rotated by θ about c.
    static func rotated(_ x: Double, _ y: Double, about c: (x: Double, y: Double), by theta: Double) -> (x: Double, y: Double) {
        let dx = x - c.x, dy = y - c.y, cosine = cos(theta), sine = sin(theta)
        return (c.x + dx * cosine - dy * sine, c.y + dx * sine + dy * cosine)
    }
}
