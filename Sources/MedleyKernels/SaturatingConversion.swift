extension Int {
    /// `value` rounded by `rule` and held inside `range`; NaN gives `range.lowerBound`. For numbers that come from
    /// pipelines, headers or pixel maths, where `Int(_:)` traps on infinities, NaN and values out of range.
    @inlinable
    public init(saturating value: Double, in range: ClosedRange<Int>,
                rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let rounded = value.rounded(rule)
        if !(rounded > Double(range.lowerBound)) {
            self = range.lowerBound
        } else if rounded >= Double(range.upperBound) {
            self = range.upperBound
        } else {
            self = Int(rounded)
        }
    }
}

extension Float {
    /// The value held inside 0…1, with NaN as 0 (`min(max(v, 0), 1)` keeps NaN, and converting NaN traps).
    @inlinable @inline(__always)
    public var unitClamped: Float { self > 0 ? (self < 1 ? self : 1) : 0 }
}
