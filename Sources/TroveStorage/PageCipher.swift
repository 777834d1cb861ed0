import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Seals and opens pages with AES-256-GCM.
///
/// The page key is HKDF-SHA256 of the user's 64-byte key and a per-file random salt. A page
/// (or run) is sealed whole except its trailer, which holds the nonce and tag; the page number
/// is the associated data, so a page copied to another position fails to open. The nonce is
/// `pgno (u32) | epoch (u32) | counter (u32)`: the epoch is bumped durably (one `fdatasync`)
/// by each writer session before its first write, and the counter counts page writes within the
/// session, so no nonce is used twice even when a crash discards a transaction.
final class PageCipher: @unchecked Sendable {
    let key: SymmetricKey
    private static let keyCheckPlaintext = Array("trove key check!".utf8)   // 16 bytes

    init(userKey: [UInt8], salt: [UInt8]) throws {
        guard userKey.count == 64 else {
            throw StorageError.invalidArgument("an encryption key is 64 bytes, not \(userKey.count)")
        }
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: userKey), salt: salt,
            info: Array("trove page key v1".utf8), outputByteCount: 32)
    }

    /// A sealed known block that lets open tell a wrong key from a corrupt file.
    func makeKeyCheck() throws -> [UInt8] {
        let nonce = AES.GCM.Nonce()
        let box = try AES.GCM.seal(PageCipher.keyCheckPlaintext, using: key, nonce: nonce)
        return Array(nonce) + Array(box.ciphertext) + Array(box.tag)
    }

    func checkKey(_ block: [UInt8], of path: String) throws {
        guard block.count == 44,
              let nonce = try? AES.GCM.Nonce(data: block[0..<12]),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: block[12..<28], tag: block[28..<44]),
              let plain = try? AES.GCM.open(box, using: key),
              Array(plain) == PageCipher.keyCheckPlaintext
        else { throw StorageError.wrongEncryptionKey(path: path) }
    }

    /// Encrypts the run at `p` (`length` bytes) in place and returns the first 8 bytes of its tag,
    /// which parents record as the run's checksum.
    func seal(_ p: UnsafeMutableRawPointer, length: Int, pgno: UInt64, epoch: UInt32, counter: UInt32) throws -> UInt64 {
        let bodyLength = length - PageLayout.trailerSize
        var nonceBytes = [UInt8](repeating: 0, count: 12)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: pgno).littleEndian) { nonceBytes.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: epoch.littleEndian) { nonceBytes.replaceSubrange(4..<8, with: $0) }
        withUnsafeBytes(of: counter.littleEndian) { nonceBytes.replaceSubrange(8..<12, with: $0) }
        let nonce = try AES.GCM.Nonce(data: nonceBytes)
        let plain = UnsafeRawBufferPointer(start: p, count: bodyLength)
        let box = try AES.GCM.seal(plain, using: key, nonce: nonce, authenticating: PageCipher.associatedData(pgno))
        box.ciphertext.withUnsafeBytes { p.copyMemory(from: $0.baseAddress!, byteCount: bodyLength) }
        let trailer = p + bodyLength
        trailer.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.trailerSize)
        nonceBytes.withUnsafeBytes { trailer.copyMemory(from: $0.baseAddress!, byteCount: 12) }
        box.tag.withUnsafeBytes { (trailer + 12).copyMemory(from: $0.baseAddress!, byteCount: 16) }
        return (trailer + 12).loadUnaligned(as: UInt64.self)
    }

    /// Decrypts the run at `src` into `dst` (both `length` bytes); throws if it fails to authenticate.
    func open(_ src: UnsafeRawPointer, into dst: UnsafeMutableRawPointer, length: Int, pgno: UInt64) throws {
        let bodyLength = length - PageLayout.trailerSize
        let trailer = src + bodyLength
        do {
            let nonce = try AES.GCM.Nonce(data: UnsafeRawBufferPointer(start: trailer, count: 12))
            let box = try AES.GCM.SealedBox(
                nonce: nonce,
                ciphertext: UnsafeRawBufferPointer(start: src, count: bodyLength),
                tag: UnsafeRawBufferPointer(start: trailer + 12, count: 16))
            let plain = try AES.GCM.open(box, using: key, authenticating: PageCipher.associatedData(pgno))
            plain.withUnsafeBytes { dst.copyMemory(from: $0.baseAddress!, byteCount: bodyLength) }
            (dst + bodyLength).copyMemory(from: trailer, byteCount: PageLayout.trailerSize)
        } catch {
            throw StorageError.corrupt(page: pgno, detail: "page fails to authenticate (damaged, or moved)")
        }
    }

    /// The checksum a parent records for a sealed run: the first 8 bytes of its tag.
    static func sealedChecksum(_ p: UnsafeRawPointer, length: Int) -> UInt64 {
        (p + length - PageLayout.trailerSize + 12).loadUnaligned(as: UInt64.self)
    }

    private static func associatedData(_ pgno: UInt64) -> [UInt8] {
        withUnsafeBytes(of: pgno.littleEndian) { Array($0) }
    }
}
