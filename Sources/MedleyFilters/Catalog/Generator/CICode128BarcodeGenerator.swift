import MedleyKernels

/// CICode128BarcodeGenerator: a Code 128 barcode (ISO/IEC 15417) of the message, one pixel per
/// module (times Medley's `scale`), `inputBarcodeHeight` pixels tall, with `inputQuietSpace`
/// pixels of white all round. Encoded by Medley (the symbology is small): code set C for runs of
/// digits, code set B for the rest, check symbol = (start + Σ position·value) mod 103. Set B holds
/// printable ASCII (32…127); other characters fail validation. Like CIQRCodeGenerator, the result
/// has the code's own size, anchored at the origin.
enum Code128BarcodeGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CICode128BarcodeGenerator",
        displayName: "Code 128 Barcode Generator",
        categories: [Category.generator, Category.stillImage, Category.builtIn],
        summary: "Generate a Code 128 barcode image for message data.",
        reference: "ISO/IEC 15417 Code 128: code sets B and C, check symbol mod 103; 1 pixel per module × scale",
        parameters: [
            ParameterAttributes(
                name: "inputMessage", type: .text, displayName: "Message",
                description: "The message to encode in the Code 128 Barcode (printable ASCII).",
                limit: ParameterLimit(1000, because: "a Code 128 barcode of more characters is thousands of modules wide and no scanner reads it")),
            ParameterAttributes(
                name: "inputQuietSpace", type: .scalar, displayName: "Quiet Space",
                description: "The number of empty white pixels that should surround the barcode.",
                defaultValue: .number(7), minimum: 0, maximum: 100, sliderMinimum: 0, sliderMaximum: 20),
            ParameterAttributes(
                name: "inputBarcodeHeight", type: .scalar, displayName: "Barcode Height",
                description: "The height of the generated barcode in pixels.",
                defaultValue: .number(32), minimum: 1, maximum: 500, sliderMinimum: 1, sliderMaximum: 500),
            BarcodeOperation.scaleParameter,
        ])

    static func problem(_ inputs: FilterInputs) -> String? {
        guard let message = inputs.text("inputMessage") else { return "CICode128BarcodeGenerator needs an inputMessage" }
        if let bad = message.unicodeScalars.first(where: { $0.value < 32 || $0.value > 127 }) {
            return "CICode128BarcodeGenerator.inputMessage holds U+\(String(bad.value, radix: 16, uppercase: true)), which Code 128's "
                + "code set B cannot carry (printable ASCII only); use CIQRCodeGenerator for other text"
        }
        return nil
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let message = inputs.text("inputMessage"), let symbols = symbols(Array(message.utf8)) else { return nil }
        let modules = symbols.flatMap { Self.modules(of: $0) }
        guard let matrix = ModuleMatrix(width: modules.count, height: 1, dark: modules) else { return nil }
        let scale = Int(exactly: inputs.number("scale") ?? 1) ?? 1
        // Both are bounded (0…100, 1…500) by validation; rounded to whole pixels.
        let quiet = Int((inputs.number("inputQuietSpace") ?? 7).rounded()) * scale
        let height = max(1, Int((inputs.number("inputBarcodeHeight") ?? 32).rounded())) * scale
        return BarcodeOperation(matrix: matrix, quiet: quiet, moduleWidth: scale, moduleHeight: height).image
    }

    /// Symbol values: start, data, check, stop. nil for a byte outside set B (32…127).
    static func symbols(_ bytes: [UInt8]) -> [Int]? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 32 && $0 <= 127 }) else { return nil }
        func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
        func digitRun(from i: Int) -> Int {
            var j = i
            while j < bytes.count && isDigit(bytes[j]) { j += 1 }
            return j - i
        }
        var values: [Int] = []
        var setC = false
        var i = 0
        while i < bytes.count {
            let run = digitRun(from: i)
            // Set C pays off for four digits or more (two when they are the whole message).
            let useC = run >= 4 || (run == bytes.count && run >= 2)
            if useC {
                if values.isEmpty { values.append(startC) } else if !setC { values.append(codeC) }
                setC = true
                let pairs = run / 2
                for p in 0..<pairs {
                    values.append(Int(bytes[i + 2 * p] - 48) * 10 + Int(bytes[i + 2 * p + 1] - 48))
                }
                i += pairs * 2
            } else {
                if values.isEmpty { values.append(startB) } else if setC { values.append(codeB) }
                setC = false
                values.append(Int(bytes[i]) - 32)
                i += 1
            }
        }
        var sum = values[0]
        for (position, value) in values.enumerated().dropFirst() { sum += position * value }
        return values + [sum % 103, stop]
    }

    static let startB = 104, startC = 105, codeB = 100, codeC = 99, stop = 106

    /// A symbol's modules (true: bar) from its widths: bar, space, bar, … each 1…4 modules.
    static func modules(of symbol: Int) -> [Bool] {
        guard symbol >= 0 && symbol < widths.count else { return [] }
        var out: [Bool] = []
        for (i, w) in widths[symbol].enumerated() {
            let width = Int(w.asciiValue ?? 49) - 48
            out += Array(repeating: i % 2 == 0, count: width)
        }
        return out
    }

    /// The symbology's bar/space widths per symbol value 0…106 (ISO/IEC 15417 table 1); each is
    /// 11 modules, the stop 13.
    static let widths: [String] = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ]
}
