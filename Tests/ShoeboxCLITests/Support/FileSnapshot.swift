import Foundation

/// Every file under `folder` (relative path → bytes), to assert that a failed
/// command changed nothing.
func snapshotFiles(in folder: String) -> [String: Data] {
    var files: [String: Data] = [:]
    let walker = FileManager.default.enumerator(atPath: folder)
    while let name = walker?.nextObject() as? String {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue {
            files[name] = FileManager.default.contents(atPath: folder + "/" + name) ?? Data()
        }
    }
    return files
}
