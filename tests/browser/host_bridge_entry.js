// The MCP Apps host side (what Claude Desktop and other hosts run), for the page view's browser test:
// bundled by ci/extapps_host.sh into one script.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.ExtAppsHost = { AppBridge, PostMessageTransport };
