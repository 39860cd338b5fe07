#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread scratch memory for kernels. Blocks of several hundred kilobytes would otherwise be
/// mapped, faulted in and unmapped for every tile; libvips runs each tile on one of a few worker
/// threads, so one growing buffer per thread serves them all.
enum Scratch {
    private final class Buffer {
        var pointer: UnsafeMutablePointer<Float>
        var capacity: Int
        init(capacity: Int) {
            self.capacity = capacity
            pointer = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        }
        deinit { pointer.deallocate() }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            #if canImport(Glibc)
            guard let raw else { return }
            #endif
            Unmanaged<Buffer>.fromOpaque(raw).release()
        }
        return key
    }()

    /// At least `count` floats, valid until this thread's next call. Contents are undefined.
    static func floats(_ count: Int) -> UnsafeMutablePointer<Float> {
        if let raw = pthread_getspecific(key) {
            let buffer = Unmanaged<Buffer>.fromOpaque(raw).takeUnretainedValue()
            if buffer.capacity >= count { return buffer.pointer }
            buffer.pointer.deallocate()
            buffer.capacity = count
            buffer.pointer = UnsafeMutablePointer<Float>.allocate(capacity: count)
            return buffer.pointer
        }
        let buffer = Buffer(capacity: count)
        pthread_setspecific(key, Unmanaged.passRetained(buffer).toOpaque())
        return buffer.pointer
    }
}
