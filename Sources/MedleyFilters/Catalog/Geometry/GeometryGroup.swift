/// Geometry: cropping, transforms, scaling (libvips does the resampling).
enum GeometryGroup {
    static let filters: [FilterDefinition.Type] = [
        AffineTransform.self,
        AutoOrient.self,
        Crop.self,
        LanczosScaleTransform.self,
        Resize.self,
    ]
}
