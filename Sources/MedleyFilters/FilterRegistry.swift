/// Every filter Medley knows, by name.
public enum FilterRegistry {
    /// The catalog. Adding a filter = one file in `Catalog/<group>/` and one line in its group.
    static let definitions: [FilterDefinition.Type] =
        ColorAdjustmentGroup.filters + ColorEffectGroup.filters + PhotoEffectGroup.filters + StylizeGroup.filters
        + BlurGroup.filters + ConvolutionGroup.filters + GeometryGroup.filters + CompositeGroup.filters + GeneratorGroup.filters
        + ColorFunctionGroup.filters + LUTGroup.filters
        + HalftoneGroup.filters + DistortionGroup.filters

    private static let byName: [String: FilterDefinition.Type] =
        Dictionary(uniqueKeysWithValues: definitions.map { ($0.attributes.name, $0) })

    static func definition(named name: String) -> FilterDefinition.Type? { byName[name] }

    /// Names of all filters, sorted.
    public static var names: [String] { byName.keys.sorted() }

    /// The declaration of a filter, or nil.
    public static func attributes(of name: String) -> FilterAttributes? { byName[name]?.attributes }

    /// Names of the filters in a category (`CICategoryColorEffect`, or without the prefix:
    /// `ColorEffect`, case-insensitive).
    public static func names(inCategory category: String) -> [String] {
        let wanted = category.lowercased().hasPrefix("cicategory") ? category.lowercased()
            : "cicategory" + category.lowercased()
        return names.filter { name in
            byName[name]!.attributes.categories.contains { $0.lowercased() == wanted }
        }
    }

    /// The closest filter name to a misspelt one, for "did you mean".
    public static func suggestion(for name: String) -> String? { nearest(name, in: names) }
}
