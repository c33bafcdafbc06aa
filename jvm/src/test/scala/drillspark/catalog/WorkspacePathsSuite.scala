package drillspark.catalog

import java.nio.file.Files

import drillspark.testkit.{Checks, Suite}

/** The one workspace rule on a real folder tree: names below the root resolve, every way out
 * (`..`, absolute paths, URI schemes, symlinks, look-alikes of path syntax) is refused naming
 * the workspace, and a workspace that allows access outside takes the name as it is. */
object WorkspacePathsSuite extends Suite {
  val name = "workspace-paths"

  def run(c: Checks): Unit = {
    val base = Files.createTempDirectory("drillspark-ws-").toRealPath()
    val root = Files.createDirectories(base.resolve("ws"))
    val outside = Files.createDirectories(base.resolve("outside"))
    Files.writeString(outside.resolve("secret.json"), "{}")
    Files.createDirectories(root.resolve("data/sub"))
    Files.writeString(root.resolve("data/sub/t.json"), "{}")
    Files.createSymbolicLink(root.resolve("data/link"), outside.resolve("secret.json"))
    Files.createSymbolicLink(root.resolve("inner"), root.resolve("data/sub"))
    def resolve(table: String, allow: Boolean = false) =
      WorkspacePaths.resolveLocal("w", root.toString, allow, table)
    try {
      c.equal(resolve("data/sub/t.json"), root.resolve("data/sub/t.json").toString, "a plain name")
      c.equal(resolve("data/sub/../sub/t.json"), root.resolve("data/sub/t.json").toString, "a `..` that stays inside")
      c.equal(resolve(root.resolve("data/sub").toString), root.resolve("data/sub").toString, "an absolute path inside")
      c.equal(resolve("new/table"), root.resolve("new/table").toString, "a CTAS target that does not exist yet")
      c.equal(resolve("inner/t.json"), root.resolve("inner/t.json").toString, "a symlink that stays inside")
      c.fails("the path escapes the workspace root", "`..` out")(resolve("../outside/secret.json"))
      c.fails("absolute paths outside the workspace root", "an absolute path out")(resolve(outside.toString))
      c.fails("links to", "a symlink out")(resolve("data/link"))
      c.fails("links to", "a folder holding a symlink out")(resolve("data"))
      c.fails("links to", "a glob matching a symlink out")(resolve("data/l*"))
      c.fails("a URI scheme", "a URI scheme")(resolve("file:///etc/hostname"))
      c.fails("in workspace 'w'", "refusals name the workspace")(resolve("../x"))
      for (name <- Seq("．．/x", "a∕b", "x\u3002json", "a\u0000b", "\uFFFD", "", " "))
        c.fails("is refused in workspace 'w'", s"the name '$name'")(resolve(name))
      def listing(table: String) = WorkspacePaths.resolveListing("w", root.toString, false, table)
      c.equal(listing(""), root.toString, "a listing of the root")
      c.equal(listing("data"), root.resolve("data").toString, "a listing of a folder holding a symlink out")
      c.equal(listing("inner"), root.resolve("inner").toString, "a listing through a symlink that stays inside")
      c.fails("the path escapes the workspace root", "a listing of `..`")(listing("../outside"))
      c.fails("absolute paths outside the workspace root", "a listing of an absolute path out")(listing("/etc"))
      c.fails("links to", "a listing of a symlink out")(listing("data/link"))
      c.fails("is refused in workspace 'w'", "a listing of a look-alike name")(listing("．．/x"))
      c.equal(resolve("../outside/secret.json", allow = true), outside.resolve("secret.json").toString,
        "allowAccessOutsideWorkspace takes `..`")
      c.equal(resolve("s3a://bucket/x", allow = true), "s3a://bucket/x", "allowAccessOutsideWorkspace takes a URI")
    } finally {
      Seq("data/sub/t.json", "data/link", "inner", "data/sub", "data", "").map(root.resolve)
        .foreach(p => Files.deleteIfExists(p))
      Files.delete(outside.resolve("secret.json")); Files.delete(outside); Files.delete(base)
    }
  }
}
