/// `CIFilter.attributes` as data: what `medley filters describe` prints.
extension FilterAttributes {
    /// The attributes dictionary with Core Image's key names, in declaration order. Fields a
    /// parameter does not declare are absent, as Core Image leaves them out.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("CIAttributeFilterName", .string(name)),
            ("CIAttributeFilterDisplayName", .string(displayName)),
            ("CIAttributeDescription", .string(summary)),
            ("CIAttributeFilterCategories", .array(categories.map { .string($0) })),
            ("CIAttributeReferenceDocumentation", .string(reference)),
        ]
        for parameter in parameters {
            var entry: [(String, JSONValue)] = [
                ("CIAttributeClass", .string(parameter.type.attributeClass)),
                ("CIAttributeType", .string(parameter.type.rawValue)),
                ("CIAttributeDisplayName", .string(parameter.displayName)),
                ("CIAttributeDescription", .string(parameter.description)),
            ]
            if let value = parameter.defaultValue { entry.append(("CIAttributeDefault", value.jsonValue)) }
            if let value = parameter.identity { entry.append(("CIAttributeIdentity", value.jsonValue)) }
            if let value = parameter.minimum { entry.append(("CIAttributeMin", .number(value))) }
            if let value = parameter.maximum { entry.append(("CIAttributeMax", .number(value))) }
            if let value = parameter.sliderMinimum { entry.append(("CIAttributeSliderMin", .number(value))) }
            if let value = parameter.sliderMaximum { entry.append(("CIAttributeSliderMax", .number(value))) }
            if let choices = parameter.choices { entry.append(("MedleyAttributeChoices", .array(choices.map { .string($0) }))) }
            if let limit = parameter.limit { entry.append(("MedleyAttributeLimit", .number(limit.maximum))) }
            if let length = parameter.vectorLength { entry.append(("MedleyAttributeLength", .number(Double(length)))) }
            fields.append((parameter.name, .object(entry)))
        }
        fields.append(("inputKeys", .array(parameters.map { .string($0.name) })))
        fields.append(("outputKeys", .array([.string("outputImage")])))
        return .object(fields)
    }

    /// A page for a person.
    public var text: String {
        var lines = ["\(name) — \(displayName)", "  \(summary)",
                     "  categories: \(categories.joined(separator: ", "))",
                     "  reference:  \(reference)", "", "  parameters:"]
        for parameter in parameters {
            lines.append("    \(parameter.name)  (\(parameter.type.attributeClass), \(parameter.type.rawValue)) — \(parameter.displayName)")
            var facts: [String] = []
            if let value = parameter.defaultValue { facts.append("default \(value)") }
            if let value = parameter.identity { facts.append("identity \(value)") }
            if let value = parameter.minimum { facts.append("min \(FilterValue.format(value))") }
            if let value = parameter.maximum { facts.append("max \(FilterValue.format(value))") }
            if let low = parameter.sliderMinimum, let high = parameter.sliderMaximum {
                facts.append("slider \(FilterValue.format(low))…\(FilterValue.format(high))")
            }
            if let choices = parameter.choices { facts.append("one of: " + choices.joined(separator: ", ")) }
            if let limit = parameter.limit { facts.append("Medley's limit \(FilterValue.format(limit.maximum))") }
            if let length = parameter.vectorLength { facts.append("\(length) numbers") }
            if !facts.isEmpty { lines.append("      " + facts.joined(separator: " · ")) }
            lines.append("      \(parameter.description)")
        }
        lines.append("  output: outputImage (CIImage)")
        return lines.joined(separator: "\n")
    }
}
