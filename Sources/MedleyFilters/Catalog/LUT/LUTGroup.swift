/// Colour lookup tables: Core Image's colour cubes (`CICategoryColorEffect`), with Medley's LUT files.
enum LUTGroup {
    static let filters: [FilterDefinition.Type] = [
        ColorCube.self,
        ColorCubeWithColorSpace.self,
        ColorCubesMixedWithMask.self,
    ]
}
