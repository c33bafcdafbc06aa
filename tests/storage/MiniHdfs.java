import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * Hadoop's MiniDFSCluster for the hdfs:// file plugin tests (tests/storage/hdfs_server.py): one
 * NameNode and one DataNode on loopback ports the system picks, their data under args[0];
 * prints "HDFS hdfs://localhost:PORT" once it serves, then runs until its process is stopped.
 * Run as a single-file program (java -cp JARS MiniHdfs.java DIR) with the jars
 * tools/fetch_hdfs_test_jars.py fetches.
 */
public class MiniHdfs {
  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, args[0]);
    conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.setBoolean("dfs.permissions.enabled", false);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
    System.out.println("HDFS " + cluster.getURI());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
