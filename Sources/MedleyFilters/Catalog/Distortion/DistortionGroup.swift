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

    /// `inputRadius` as the distortions declare it (each with its own default, bounds and slider).
    static func radiusParameter(defaultValue: Double, identity: Double? = nil, minimum: Double,
                                sliderMaximum: Double) -> ParameterAttributes {
        ParameterAttributes(
            name: "inputRadius", type: .distance, displayName: "Radius",
            description: "The radius determines how many pixels are used to create the distortion. The larger the radius, the wider the extent of the distortion.",
            defaultValue: .number(defaultValue), identity: identity.map(FilterValue.number), minimum: minimum,
            sliderMinimum: minimum, sliderMaximum: sliderMaximum)
    }

    /// A swirl (CITwirlDistortion, CIVortexDistortion): inside the radius, with t = (r − d)/r (d the
    /// distance from the centre), the output at p shows the input at p rotated about the centre by
    /// angle·t^power.
    struct Swirl: WarpMap {
        let center: (x: Double, y: Double)
        let radius: Double
        let angle: Double
        let power: Int

        func source(x: Double, y: Double, inputWidth: Double, inputHeight: Double) -> (x: Double, y: Double)? {
            let dx = x - center.x, dy = y - center.y
            let d = (dx * dx + dy * dy).squareRoot()
            guard d < radius else { return (x, y) }
            let t = (radius - d) / radius
            var theta = angle
            for _ in 0..<power { theta *= t }
            return DistortionGroup.rotated(x, y, about: center, by: theta)
        }
    }

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
