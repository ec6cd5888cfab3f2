import CShim
import CCurl
import CVips
import CExif
import CSQLite
import CCrypto
public enum Shoebox { public static let version = "0.1.0" }
