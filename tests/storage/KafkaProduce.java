// The kafka plugin's tests' producer (tests/storage/kafka_server.py): reads JSON lines from
// standard input; {"topic": T, "partitions": N} creates topic T with N partitions, and
// {"topic": T, "value": TEXT, "partition": N, "key": TEXT, "timestamp": MS} (all but topic and
// value optional) sends one message to it (in order; all acknowledged before it exits). Run as a
// single-file program with the broker's jars:
//   java -cp 'tests/storage/jars/kafka/*' tests/storage/KafkaProduce.java BOOTSTRAP
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class KafkaProduce {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put("bootstrap.servers", args[0]);
    props.put("key.serializer", ByteArraySerializer.class.getName());
    props.put("value.serializer", ByteArraySerializer.class.getName());
    props.put("acks", "all");
    ObjectMapper json = new ObjectMapper();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (Admin admin = Admin.create(props);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        JsonNode m = json.readTree(line);
        String topic = m.get("topic").asText();
        if (m.has("partitions")) {
          admin.createTopics(List.of(new NewTopic(topic, m.get("partitions").asInt(), (short) 1))).all().get();
          continue;
        }
        Integer partition = m.hasNonNull("partition") ? m.get("partition").asInt() : null;
        Long timestamp = m.hasNonNull("timestamp") ? m.get("timestamp").asLong() : null;
        byte[] key = m.hasNonNull("key") ? m.get("key").asText().getBytes(StandardCharsets.UTF_8) : null;
        byte[] value = m.get("value").asText().getBytes(StandardCharsets.UTF_8);
        sent.add(producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value)));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) f.get(); // every message acknowledged, or fail
    }
  }
}
