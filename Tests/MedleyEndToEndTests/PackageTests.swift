import Foundation
import MedleyTestSupport
import XCTest

/// The packages `scripts/package.sh` makes, installed where a user would install them: clean
/// Debian 12 roots made by mmdebstrap from Debian's mirror, without the Swift toolchain.
///
/// - the `.deb`, installed with `apt-get install ./medley_*.deb` (apt fetches its `Depends:` from
///   the mirror), runs the sepia and AAC example pipelines from /usr/share/doc/medley/examples;
///   `man medley` finds the page and `medley --version` works;
/// - the tarball, unpacked into a root that has none of the run-time libraries (`ldconfig -p` lacks
///   libvips and FFmpeg, and the bare binary does not start there), runs the same pipelines
///   through its launcher.
///
/// The outputs are read from the host by the peers: vipsheader and vips for the photos (size,
/// and pixels against the sepia formula and against the same pipeline run by the host build),
/// ffprobe for the AAC files (codec, rate, channels, duration against the source's).
///
/// Commands in a root run as `unshare --fork --pid --mount --mount-proc chroot …`: a /proc of its
/// own (Swift's runtime reads the arguments from /proc/self/cmdline) that vanishes with the
/// command, and the host's network for apt. The roots are cached as tarballs under
/// ~/.cache/medley-tests/package-roots, keyed by the mmdebstrap options and the apt sources;
/// the cache only saves time. Every external command has a time limit (a hang guard).
final class PackageTests: EndToEndCase {
    /// What scripts/package.sh made, once per test run, shared by this class's tests.
    struct Packages {
        let folder: String
        let deb: String
        let tarball: String
        let tarballName: String
        let log: String
    }

    private static let lock = NSLock()
    private static var made: Swift.Result<Packages, Error>?
    private static var version: String {
        // From the source file, as package.sh reads it: `public let medleyVersion = "0.1.0"`.
        let text = (try? String(contentsOfFile: Tool.packageRoot + "/Sources/MedleyCore/Version.swift", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("public let medleyVersion") } ?? ""
        return line.split(separator: "\"").dropFirst().first.map(String.init) ?? "?"
    }

    static func packages() throws -> Packages {
        lock.lock()
        defer { lock.unlock() }
        if made == nil {
            made = Swift.Result {
                let folder = NSTemporaryDirectory() + "medley-packages-\(UUID().uuidString)"
                // The release build may start from nothing: an hour is the hang guard, not an expectation.
                let run = try Tool.run(Tool.packageRoot + "/scripts/package.sh", ["--out", folder], timeLimit: 3600)
                guard run.status == 0 else {
                    throw NSError(domain: "package.sh", code: Int(run.status), userInfo: [NSLocalizedDescriptionKey: run.stderr])
                }
                let name = "medley-\(version)-linux-x86_64"
                return Packages(folder: folder, deb: folder + "/medley_\(version)_amd64.deb",
                                tarball: folder + "/\(name).tar.xz", tarballName: name, log: run.stderr)
            }
        }
        return try made!.get()
    }

    override class func tearDown() {
        if case .success(let packages)? = made { try? FileManager.default.removeItem(atPath: packages.folder) }
        super.tearDown()
    }

    // MARK: - roots

    /// A Debian 12 root as a tarball from the cache, made by mmdebstrap (variant apt: essential
    /// packages and apt, no Swift, no media libraries) with `include` added.
    static func cachedRoot(include: [String]) throws -> String {
        let sources = "/etc/apt/sources.list.d/debian.sources"
        var options = ["--variant=apt", "--aptopt=APT::Install-Recommends \"false\""]
        if !include.isEmpty { options.append("--include=" + include.joined(separator: ",")) }
        let key = options.joined(separator: "\n") + "\n" + ((try? String(contentsOfFile: sources, encoding: .utf8)) ?? "")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let cache = Tool.testData + "/package-roots"
        let tarball = cache + "/bookworm-" + String(hash, radix: 16) + ".tar"
        if FileManager.default.fileExists(atPath: tarball) { return tarball }
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let partial = tarball + ".\(getpid()).partial"
        let made = try Tool.run("mmdebstrap", ["--quiet", "--format=tar"] + options + ["bookworm", partial, sources], timeLimit: 1800)
        guard made.status == 0 else {
            try? FileManager.default.removeItem(atPath: partial)
            throw NSError(domain: "mmdebstrap", code: Int(made.status), userInfo: [NSLocalizedDescriptionKey: made.stderr])
        }
        try FileManager.default.moveItem(atPath: partial, toPath: tarball)
        return tarball
    }

    /// Unpacks a cached root into this test's scratch folder, with the host's resolver for apt.
    private func makeRoot(include: [String] = []) throws -> String {
        let root = work + "/root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let unpacked = try Tool.run("tar", ["-xf", try Self.cachedRoot(include: include), "-C", root, "--numeric-owner"])
        XCTAssertEqual(unpacked.status, 0, unpacked.stderr)
        _ = try? FileManager.default.removeItem(atPath: root + "/etc/resolv.conf")
        try FileManager.default.copyItem(atPath: "/etc/resolv.conf", toPath: root + "/etc/resolv.conf")
        return root
    }

    /// Runs a command inside `root` with a clean environment.
    private func inRoot(_ root: String, _ command: [String], timeLimit: TimeInterval = ProcessRunner.defaultTimeLimit) throws -> Tool.Result {
        try Tool.run("/usr/bin/unshare", ["--fork", "--pid", "--mount", "--mount-proc=\(root)/proc", "/usr/sbin/chroot", root,
                                          "/usr/bin/env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                                          "HOME=/root", "LANG=C.UTF-8", "DEBIAN_FRONTEND=noninteractive"] + command,
                     timeLimit: timeLimit)
    }

    /// The root holds no Swift toolchain nor any Swift runtime library.
    private func assertNoSwift(_ root: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/opt/swift"), file: file, line: line)
        let found = try inRoot(root, ["/usr/bin/find", "/", "-xdev", "(", "-name", "libswiftCore.so*", "-o", "-name", "swift",
                                      "-o", "-name", "libFoundation.so*", ")", "-print"])
        XCTAssertEqual(found.status, 0, found.stderr, file: file, line: line)
        XCTAssertEqual(found.stdout, "", "Swift in the clean root", file: file, line: line)
    }

    // MARK: - the Debian package

    func testDebInstallsWithAptIntoCleanDebianAndRunsTheExamples() throws {
        let packages = try Self.packages()
        // The control file: the libraries by package name, the font for text watermarks.
        let depends = try Tool.run("dpkg-deb", ["-f", packages.deb, "Depends"]).stdout
        for name in ["libvips42", "libavcodec59", "libsndfile1", "libyaml-0-2", "libc6", "fonts-dejavu-core"] {
            XCTAssertTrue(depends.contains(name), "Depends: \(depends)")
        }
        XCTAssertFalse(depends.lowercased().contains("swift"), depends)
        XCTAssertEqual(try Tool.run("dpkg-deb", ["-f", packages.deb, "Version"]).stdout, Self.version + "\n")
        let listing = try Tool.run("dpkg-deb", ["-c", packages.deb]).stdout
        for path in ["./usr/bin/medley", "./usr/share/doc/medley/copyright", "./usr/share/doc/medley/README.md",
                     "./usr/share/doc/medley/examples/pipelines/sepia-photos.yaml",
                     "./usr/share/doc/medley/examples/fixtures/images/landscape.jpg"] {
            XCTAssertTrue(listing.contains(" " + path + "\n"), "\(path) in the .deb")
        }
        // Every file root's (--root-owner-group).
        XCTAssertFalse(listing.split(separator: "\n").contains { !$0.contains(" root/root ") }, listing)

        let root = try makeRoot(include: ["man-db"])
        try assertNoSwift(root)
        try FileManager.default.copyItem(atPath: packages.deb, toPath: root + "/tmp/" + (packages.deb as NSString).lastPathComponent)
        let update = try inRoot(root, ["apt-get", "update"], timeLimit: 900)
        XCTAssertEqual(update.status, 0, update.stderr)
        let install = try inRoot(root, ["apt-get", "install", "--yes", "--no-install-recommends",
                                        "./tmp/" + (packages.deb as NSString).lastPathComponent], timeLimit: 1800)
        XCTAssertEqual(install.status, 0, install.stdout + install.stderr)
        guard install.status == 0 else { return }

        let version = try inRoot(root, ["medley", "--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertTrue(version.stdout.contains(Self.version), version.stdout)
        let which = try inRoot(root, ["sh", "-c", "command -v medley"])
        XCTAssertEqual(which.stdout, "/usr/bin/medley\n")
        let ldd = try inRoot(root, ["ldd", "/usr/bin/medley"])
        XCTAssertFalse(ldd.stdout.contains("not found"), ldd.stdout)

        if FileManager.default.fileExists(atPath: Tool.packageRoot + "/docs/medley.1") {
            let path = try inRoot(root, ["man", "-w", "medley"])
            XCTAssertEqual(path.stdout, "/usr/share/man/man1/medley.1.gz\n", path.stderr)
            let page = try inRoot(root, ["man", "-P", "cat", "medley"], timeLimit: 120)
            XCTAssertEqual(page.status, 0, page.stderr)
            XCTAssertTrue(page.stdout.contains("medley"), page.stdout)
        } else {
            XCTAssertFalse(listing.contains("medley.1.gz"), "a man page from a docs/medley.1 that does not exist")
        }
        try checkCompletions(listing: listing, paths: ["./usr/share/bash-completion/completions/medley",
                                                       "./usr/share/zsh/vendor-completions/_medley",
                                                       "./usr/share/fish/vendor_completions.d/medley.fish"])
        try checkBashCompletion(root: root, listing: listing, path: "/usr/share/bash-completion/completions/medley")

        // The examples, copied where the user can write, as examples/README says.
        let copied = try inRoot(root, ["cp", "-R", "/usr/share/doc/medley/examples", "/root/examples"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        try runExamples(root: root, medley: "medley", examples: "/root/examples")
    }

    // MARK: - the tarball

    func testTarballRunsTheExamplesInARootWithoutTheLibraries() throws {
        let packages = try Self.packages()
        let root = try makeRoot()
        try assertNoSwift(root)
        // The root lacks the run-time libraries: the tarball must bring them.
        let cached = try inRoot(root, ["ldconfig", "-p"])
        XCTAssertEqual(cached.status, 0, cached.stderr)
        for library in ["libvips.so", "libavcodec.so", "libsndfile.so", "libyaml-0.so", "libglib-2.0.so"] {
            XCTAssertFalse(cached.stdout.contains(library), "\(library) in the clean root")
        }
        XCTAssertTrue(cached.stdout.contains("libc.so.6"), cached.stdout)

        let unpacked = try Tool.run("tar", ["-xJf", packages.tarball, "-C", root + "/opt"])
        XCTAssertEqual(unpacked.status, 0, unpacked.stderr)
        let top = "/opt/" + packages.tarballName
        let listing = try Tool.run("tar", ["-tJf", packages.tarball]).stdout
            .split(separator: "\n").map { "./" + $0.dropFirst(packages.tarballName.count + 1) }.joined(separator: "\n") + "\n"

        // Without the launcher the binary does not find its libraries here; through it, it runs.
        let bare = try inRoot(root, ["ldd", top + "/libexec/medley"])
        XCTAssertTrue(bare.stdout.contains("libvips.so.42 => not found"), bare.stdout)
        let version = try inRoot(root, [top + "/bin/medley", "--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertTrue(version.stdout.contains(Self.version), version.stdout)
        // A link on PATH finds the tree through it.
        XCTAssertEqual(try inRoot(root, ["ln", "-s", top + "/bin/medley", "/usr/local/bin/medley"]).status, 0)
        let linked = try inRoot(root, ["medley", "--version"])
        XCTAssertEqual(linked.stdout, version.stdout, linked.stderr)

        // glibc stays the system's; everything else it loads is bundled.
        let lib = root + top + "/lib"
        let bundled = try FileManager.default.contentsOfDirectory(atPath: lib)
        for name in ["libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libpthread.so.0"] {
            XCTAssertFalse(bundled.contains(name), "\(name) bundled")
        }
        for prefix in ["libvips.so", "libavcodec.so", "libsndfile.so", "libglib-2.0.so", "libstdc++.so"] {
            XCTAssertTrue(bundled.contains { $0.hasPrefix(prefix) }, "\(prefix) not bundled: \(bundled.sorted())")
        }
        let hostModules = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/x86_64-linux-gnu"))?
            .filter { $0.hasPrefix("vips-modules-") } ?? []
        for folder in hostModules {
            XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: lib + "/" + folder)),
                           Set(try FileManager.default.contentsOfDirectory(atPath: "/usr/lib/x86_64-linux-gnu/" + folder)), folder)
        }
        // Every library of the binary and the modules resolves inside the tree.
        let closure = try inRoot(root, ["sh", "-c", "LD_LIBRARY_PATH=\(top)/lib ldd \(top)/libexec/medley \(top)/lib/vips-modules-*/*.so"])
        XCTAssertFalse(closure.stdout.contains("not found"), closure.stdout)
        // The README names the oldest glibc, and it is one this root's glibc meets.
        let readme = try String(contentsOfFile: root + top + "/README", encoding: .utf8)
        XCTAssertTrue(readme.contains("Needs glibc 2."), readme)

        if FileManager.default.fileExists(atPath: Tool.packageRoot + "/docs/medley.1") {
            XCTAssertTrue(listing.contains("./share/man/man1/medley.1.gz\n"), listing)
        }
        try checkCompletions(listing: listing, paths: ["./share/bash-completion/completions/medley",
                                                       "./share/zsh/site-functions/_medley",
                                                       "./share/fish/vendor_completions.d/medley.fish"])
        try checkBashCompletion(root: root, listing: listing, path: top + "/share/bash-completion/completions/medley",
                                relative: "./share/bash-completion/completions/medley")

        let copied = try inRoot(root, ["cp", "-R", top + "/share/doc/medley/examples", "/root/examples"])
        XCTAssertEqual(copied.status, 0, copied.stderr)
        try runExamples(root: root, medley: "medley", examples: "/root/examples")
    }

    // MARK: - shared checks

    /// Completions are in the package exactly when the built medley has `medley completions`.
    private func checkCompletions(listing: String, paths: [String]) throws {
        let bash = try Tool.run(Tool.medley, ["completions", "bash"])
        for path in paths {
            XCTAssertEqual(listing.contains(" " + path + "\n") || listing.contains("\n" + path + "\n"),
                           bash.status == 0 && !bash.stdout.isEmpty, path)
        }
    }

    /// A packaged bash completion loads in the root's bash and registers itself for `medley`.
    private func checkBashCompletion(root: String, listing: String, path: String, relative: String? = nil) throws {
        let entry = relative ?? "." + path
        guard listing.contains(" " + entry + "\n") || listing.contains("\n" + entry + "\n") else { return }
        let loaded = try inRoot(root, ["bash", "-c", ". \(path) && complete -p medley"])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        XCTAssertTrue(loaded.stdout.hasPrefix("complete ") && loaded.stdout.hasSuffix(" medley\n"), loaded.stdout)
    }

    /// Runs the sepia and AAC examples inside the root and checks their outputs from the host.
    private func runExamples(root: String, medley: String, examples: String) throws {
        let sepia = try inRoot(root, [medley, "run", examples + "/pipelines/sepia-photos.yaml"])
        XCTAssertEqual(sepia.status, 0, sepia.stderr)
        let aac = try inRoot(root, [medley, "run", examples + "/pipelines/podcasts-aac.yaml"])
        XCTAssertEqual(aac.status, 0, aac.stderr)
        try checkSepia(root + examples + "/out/sepia")
        try checkAAC(root + examples + "/out/aac")
    }

    /// The fixture photos the sepia example takes (every image under fixtures/images but thumbs/),
    /// by vips' own judgement of what is an image.
    private func sepiaSources() throws -> [String] {
        try Tool.files(under: Tool.fixtures + "/images").filter { file in
            if file.hasPrefix("thumbs/") { return false }
            return try Tool.run("vipsheader", [Tool.fixtures + "/images/" + file]).status == 0
        }
    }

    private func checkSepia(_ out: String) throws {
        let sources = try sepiaSources()
        XCTAssertEqual(sources.count, 7, "\(sources)")
        let expected = sources.map { ($0 as NSString).deletingPathExtension + "-sepia.jpg" }.sorted()
        XCTAssertEqual(Tool.files(under: out), expected)

        // The same pipeline, run by the host build on a copy of the examples.
        let host = work + "/host"
        try FileManager.default.createDirectory(atPath: host + "/fixtures", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Tool.packageRoot + "/pipelines", toPath: host + "/pipelines")
        try FileManager.default.copyItem(atPath: Tool.fixtures + "/images", toPath: host + "/fixtures/images")
        let hosted = try Tool.run(Tool.medley, ["run", host + "/pipelines/sepia-photos.yaml"])
        XCTAssertEqual(hosted.status, 0, hosted.stderr)

        for (source, output) in zip(sources, expected) {
            // The size is the source's, upright (vips autorot applies the EXIF orientation).
            let upright = work + "/upright-\(UUID().uuidString).v"
            try Tool.vips(["autorot", Tool.fixtures + "/images/" + source, upright])
            XCTAssertEqual(try Tool.vipsHeader(root(out, output), "width"), try Tool.vipsHeader(upright, "width"), output)
            XCTAssertEqual(try Tool.vipsHeader(root(out, output), "height"), try Tool.vipsHeader(upright, "height"), output)
            XCTAssertEqual(try Tool.vipsHeader(root(out, output), "format"), "uchar", output)
            // Pixels as the host build's: the generic-CPU release build computes what the source build does
            // (JPEG at quality 85 of float results that may round apart by one level).
            let packaged = try Tool.vipsFloats(root(out, output), scratch: work)
            let reference = try Tool.vipsFloats(host + "/out/sepia/" + output, scratch: work)
            XCTAssertEqual(packaged.samples.count, reference.samples.count, output)
            if packaged.samples.count == reference.samples.count, !packaged.samples.isEmpty {
                let differences = zip(packaged.samples, reference.samples).map { abs(Double($0) - Double($1)) }
                XCTAssertLessThanOrEqual(differences.reduce(0, +) / Double(differences.count), 0.5, output)
                XCTAssertLessThanOrEqual(differences.max() ?? 0, 8, output)
            }
        }

        // And the formula: the landscape photo through the sepia matrix in linear light at 0.8.
        let source = try Tool.vipsFloats(Tool.fixtures + "/images/landscape.jpg", scratch: work)
        let toned = try Tool.vipsFloats(root(out, "landscape-sepia.jpg"), scratch: work)
        XCTAssertEqual(source.bands, 3)
        XCTAssertEqual(toned.samples.count, source.samples.count)
        guard toned.samples.count == source.samples.count else { return }
        var total = 0.0
        for pixel in 0..<(source.samples.count / 3) {
            let rgb = (0..<3).map { Int(source.samples[pixel * 3 + $0].rounded()) }
            let expected = Reference.sepia(rgb, intensity: 0.8)
            for c in 0..<3 { total += abs(expected[c] - Double(toned.samples[pixel * 3 + c])) }
        }
        // JPEG at quality 85 moves a smooth photo's samples by a level or two on average.
        XCTAssertLessThanOrEqual(total / Double(source.samples.count), 3.0)
    }

    private func root(_ folder: String, _ file: String) -> String { folder + "/" + file }

    private func checkAAC(_ out: String) throws {
        // The example's include globs, applied here: WAV, AIFF, CAF and FLAC at the top (broken/ excluded).
        let sources = try FileManager.default.contentsOfDirectory(atPath: Tool.fixtures + "/audio")
            .filter { ["wav", "aif", "caf", "flac"].contains(($0 as NSString).pathExtension) }.sorted()
        XCTAssertGreaterThanOrEqual(sources.count, 5, "\(sources)")
        let expected = sources.map { ($0 as NSString).deletingPathExtension + ".m4a" }.sorted()
        XCTAssertEqual(Tool.files(under: out), expected)
        for (source, output) in zip(sources, expected) {
            let probe = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                 "stream=codec_name,profile,sample_rate,channels:format=duration",
                                                 "-of", "default=noprint_wrappers=1", out + "/" + output])
            XCTAssertEqual(probe.status, 0, probe.stderr)
            let fields = Dictionary(probe.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }) { first, _ in first }
            XCTAssertEqual(fields["codec_name"], "aac", output)
            XCTAssertEqual(fields["profile"], "LC", output)
            XCTAssertEqual(fields["sample_rate"], "44100", output)
            XCTAssertEqual(fields["channels"], "2", output)
            let original = try Tool.run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                                    Tool.fixtures + "/audio/" + source])
            let want = Double(original.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            let got = Double(fields["duration"] ?? "") ?? -100
            // AAC frames are 1024 samples: the end may be padded by part of one (23 ms at 44.1 kHz).
            XCTAssertEqual(got, want, accuracy: 0.05, output)
        }
    }
}
