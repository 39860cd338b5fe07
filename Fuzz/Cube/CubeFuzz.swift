// libFuzzer entry point over the LUT readers (MedleyFilters' CubeFile.swift), compiled by
// scripts/fuzz.sh into one module with that file over an instrumented MedleyKernels.
// MEDLEY_FUZZ_TARGET: "cube" (CubeFile.parse on the bytes, as LookupTableFile does) or "hald"
// (HaldCLUT.table on what libvips would decode: the first byte picks the side and bands, the rest
// are the samples).
import Foundation

private let target = ProcessInfo.processInfo.environment["MEDLEY_FUZZ_TARGET"] ?? "cube"

@_cdecl("LLVMFuzzerTestOneInput")
public func medleyFuzzCube(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch target {
    case "cube": _ = CubeFile.parse(bytes)
    case "hald":
        guard bytes.count >= 2 else { return 0 }
        let sides = [0, 1, 7, 8, 9, 27, 64]
        let side = sides[Int(bytes[0]) % sides.count], other = bytes[0] & 0x80 != 0 ? side + 1 : side
        let bands = Int(bytes[1]) % 6
        let samples = bytes.dropFirst(2).map { Float($0) / 255 }
        _ = HaldCLUT.table(samples: samples, width: side, height: other, bands: bands)
    default: fatalError("unknown MEDLEY_FUZZ_TARGET \(target)")
    }
    return 0
}
