// The definitions javac's own parser finds in each Java file named on the command line, printed as
// "path<TAB>qualified name<TAB>first line<TAB>last line" lines: the reference for the Java outline.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.tools.*;
import java.util.*;

public class JavacDefinitions {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null);
        JavacTask task = (JavacTask) compiler.getTask(null, files, d -> {}, List.of("-proc:none"), null,
            files.getJavaFileObjects(args));
        SourcePositions positions = Trees.instance(task).getSourcePositions();
        for (CompilationUnitTree unit : task.parse()) {
            String path = unit.getSourceFile().getName();
            LineMap lines = unit.getLineMap();
            new TreeScanner<Void, String>() {
                void emit(Tree tree, String name) {
                    long start = positions.getStartPosition(unit, tree), end = positions.getEndPosition(unit, tree);
                    System.out.println(path + "\t" + name + "\t" + lines.getLineNumber(start) + "\t"
                        + lines.getLineNumber(end - 1));
                }
                @Override public Void visitClass(ClassTree tree, String prefix) {
                    String name = tree.getSimpleName().toString();
                    if (name.isEmpty()) return super.visitClass(tree, prefix);  // an anonymous class
                    emit(tree, prefix + name);
                    return super.visitClass(tree, prefix + name + ".");
                }
                @Override public Void visitMethod(MethodTree tree, String prefix) {
                    String name = tree.getName().toString();
                    if (name.equals("<init>")) name = prefix.substring(0, prefix.length() - 1).replaceAll(".*\\.", "");
                    emit(tree, prefix + name);
                    return super.visitMethod(tree, prefix + name + ".");
                }
            }.scan(unit, "");
        }
    }
}
