import Foundation
import MedleyKernels
import XCTest

/// The spectrogram and waveform kernels against formulas evaluated here: the FFT against the DFT's
/// sum, a sine's level and row, the exact partition of samples into columns.
final class SoundPictureKernelTests: XCTestCase {
    func testFFTIsTheDiscreteFourierTransform() {
        let n = 64
        let signal = (0..<n).map { sin(Double($0) * 0.37) + 0.5 * cos(Double($0 * $0) * 0.01) }
        var re = signal, im = [Double](repeating: 0, count: n)
        SoundPicture.fft(&re, &im)
        for k in 0..<n {
            var sr = 0.0, si = 0.0
            for t in 0..<n {
                let angle = -2 * Double.pi * Double(k * t) / Double(n)
                sr += signal[t] * cos(angle)
                si += signal[t] * sin(angle)
            }
            XCTAssertEqual(re[k], sr, accuracy: 1e-9, "bin \(k)")
            XCTAssertEqual(im[k], si, accuracy: 1e-9, "bin \(k)")
        }
    }

    /// A sine of amplitude A at row r's frequency is A in dB full scale (20·log10 A) on row r, and
    /// far below it elsewhere; between two rows, within Hann's 1.42 dB scalloping.
    func testASineIsAtItsLevelOnItsRow() {
        let height = 129, n = SoundPicture.transformLength(height: height)
        XCTAssertEqual(n, 512)
        for (row, amplitude) in [(10, 0.5), (64, 1.0), (100, 0.01)] {
            let cycles = Double(row) / Double(height - 1) * Double(n / 2)  // a bin centre
            let window = (0..<n).map { Float(amplitude * sin(2 * Double.pi * cycles * Double($0) / Double(n) + 0.3)) }
            let levels = SoundPicture.spectrumColumn(window, height: height)
            XCTAssertEqual(levels[row], 20 * log10(amplitude), accuracy: 0.01, "row \(row)")
            XCTAssertLessThan(levels[row + 5], 20 * log10(amplitude) - 60, "row \(row) + 5")
        }
        let between = (0..<n).map { Float(sin(2 * Double.pi * 40.5 * Double($0) / Double(n))) }
        let levels = SoundPicture.spectrumColumn(between, height: height)
        XCTAssertGreaterThan(levels.max()!, -1.43)
        XCTAssertLessThanOrEqual(levels.max()!, 0.001)
    }

    func testColumnsPartitionTheSamplesAndRowsFollowTheScale() {
        for (columns, frames) in [(7, 100), (300, 24_000), (50, 30)] {
            var next = 0
            for c in 0..<columns {
                let span = SoundPicture.span(column: c, columns: columns, frames: frames)
                XCTAssertEqual(span.lowerBound, next)
                next = span.upperBound
            }
            XCTAssertEqual(next, frames)
        }
        XCTAssertEqual(SoundPicture.waveformRow(1, height: 101, decibelFloor: nil), 0)
        XCTAssertEqual(SoundPicture.waveformRow(-1, height: 101, decibelFloor: nil), 100)
        XCTAssertEqual(SoundPicture.waveformRow(0, height: 101, decibelFloor: nil), 50)
        XCTAssertEqual(SoundPicture.waveformRow(0.5, height: 101, decibelFloor: nil), 25)
        // dB: −30 dB on a −60 dB floor is half way to the edge.
        XCTAssertEqual(SoundPicture.waveformRow(Float(pow(10, -30.0 / 20)), height: 101, decibelFloor: -60), 25)
        XCTAssertEqual(SoundPicture.waveformRow(-0.0001, height: 101, decibelFloor: -60), 50)
    }
}
