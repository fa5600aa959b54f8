package dev.zkr.cli;

import dev.zkr.client.ZkClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code addauth SCHEME AUTH}: authenticates the session ({@code addauth digest bob:secret}). In the shell it holds
 * for the rest of the shell's session (and is re-sent on reconnect); one-shot commands use {@code --auth} instead.
 */
@Command(name = "addauth", mixinStandardHelpOptions = true,
        description = "Authenticate this session (in the shell; one-shot commands take --auth scheme:auth).")
final class AddAuthCommand extends NodeCommand {

    @Parameters(index = "0", paramLabel = "SCHEME", description = "The scheme, e.g. digest.")
    String scheme;

    @Parameters(index = "1", paramLabel = "AUTH", description = "What the scheme takes, e.g. bob:secret for digest.")
    String auth;

    @Override
    protected int run(ZkClient client, Output out) {
        client.addAuthInfo(scheme, auth.getBytes(StandardCharsets.UTF_8));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("scheme", scheme);
        json.put("authenticated", true);
        out.result(json, List.of());
        return ExitCode.OK;
    }
}
