/// Geometry: cropping, transforms, scaling (libvips does the resampling).
enum GeometryGroup {
    static let filters: [FilterDefinition.Type] = [
        AffineClamp.self,
        AffineTile.self,
        AffineTransform.self,
        AutoOrient.self,
        BicubicScaleTransform.self,
        Crop.self,
        LanczosScaleTransform.self,
        PerspectiveCorrection.self,
        PerspectiveTransform.self,
        Resize.self,
        StraightenFilter.self,
    ]
}
