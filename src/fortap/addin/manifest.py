"""The Excel add-in's manifests, naming the address `fortap serve --addin` serves the pane at.

Two forms of the same add-in: `manifest.json`, Microsoft's unified manifest (schema 1.17), which
`office-addin-manifest validate` checks offline against the schema npm ships; and
`manifest.xml`, the classic TaskPaneApp manifest that every Excel (desktop, Mac, web) sideloads,
which only Microsoft's online service validates. Both open the task pane from a "fortap" button
on the Home tab. The id is fixed, so a manifest written again replaces the sideloaded one.
"""

from __future__ import annotations

import json
from xml.sax.saxutils import escape

ADDIN_ID = "5b0f3e52-6f0c-4a8e-9d41-2f7a9c1e8b6d"
VERSION = "1.0.0"
NAME = "fortap"
SHORT = "Formula suggestions, audit and answers for the selected cell."
FULL = ("fortap suggests formulas for the selected cell with the value each would give, audits "
        "the sheet for typed numbers and broken blocks, and writes a question's formula into a "
        "cell; all computed by a fortap server on this computer.")  # fmt: skip


def base_url(port: int) -> str:
    """Where `fortap serve --addin --port PORT` serves the add-in (`ServeConfig`'s add-in origin)."""
    if not 0 < port < 65536:
        raise ValueError(f"port must be 1..65535, got {port}")
    return f"https://localhost:{port}"


def unified_manifest(port: int) -> dict:
    """The unified (JSON) manifest of the add-in served on `port`."""
    url = base_url(port)
    icons = [{"size": s, "url": f"{url}/addin/static/icon-{s}.png"} for s in (16, 32, 80)]
    requirements = {"scopes": ["workbook"],
                    "capabilities": [{"name": "ExcelApi", "minVersion": "1.9"}]}  # fmt: skip
    return {
        "$schema": "https://developer.microsoft.com/json-schemas/teams/v1.17/MicrosoftTeams.schema.json",
        "manifestVersion": "1.17",
        "version": VERSION,
        "id": ADDIN_ID,
        "localizationInfo": {"defaultLanguageTag": "en-us"},
        "developer": {"name": "fortap", "websiteUrl": url, "privacyUrl": url,
                      "termsOfUseUrl": url},  # fmt: skip
        "name": {"short": NAME, "full": "fortap formula suggestions"},
        "description": {"short": SHORT, "full": FULL},
        "icons": {"outline": "icon-outline.png", "color": "icon-192.png"},
        "accentColor": "#1A73E8",
        "validDomains": [f"localhost:{port}"],
        "authorization": {"permissions": {"resourceSpecific": [
            {"name": "Document.ReadWrite.User", "type": "Delegated"}]}},  # fmt: skip
        "extensions": [{
            "requirements": requirements,
            "runtimes": [{
                "requirements": requirements,
                "id": "TaskPaneRuntime",
                "type": "general",
                "code": {"page": f"{url}/addin/taskpane.html"},
                "lifetime": "short",
                "actions": [{"id": "ShowTaskPane", "type": "openPage", "pinnable": True,
                             "view": "fortap"}],  # fmt: skip
            }],
            "ribbons": [{
                "contexts": ["default"],
                "tabs": [{"builtInTabId": "TabHome", "groups": [{
                    "id": "FortapGroup",
                    "label": "fortap",
                    "icons": icons,
                    "controls": [{
                        "id": "FortapOpen",
                        "type": "button",
                        "label": "fortap",
                        "icons": icons,
                        "supertip": {"title": "fortap", "description": SHORT},
                        "actionId": "ShowTaskPane",
                    }],
                }]}],
            }],
        }],
    }  # fmt: skip


def xml_manifest(port: int) -> str:
    """The classic TaskPaneApp XML manifest of the add-in served on `port`."""
    url = base_url(port)
    pane = f"{url}/addin/taskpane.html"

    def icon(size: int) -> str:
        return f"{url}/addin/static/icon-{size}.png"

    return f"""<?xml version="1.0" encoding="UTF-8"?>
<OfficeApp xmlns="http://schemas.microsoft.com/office/appforoffice/1.1"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xmlns:bt="http://schemas.microsoft.com/office/officeappbasictypes/1.0"
    xmlns:ov="http://schemas.microsoft.com/office/taskpaneappversionoverrides"
    xsi:type="TaskPaneApp">
  <Id>{ADDIN_ID}</Id>
  <Version>{VERSION}.0</Version>
  <ProviderName>fortap</ProviderName>
  <DefaultLocale>en-US</DefaultLocale>
  <DisplayName DefaultValue="{NAME}"/>
  <Description DefaultValue="{escape(SHORT)}"/>
  <IconUrl DefaultValue="{icon(32)}"/>
  <HighResolutionIconUrl DefaultValue="{icon(80)}"/>
  <SupportUrl DefaultValue="{url}/addin/taskpane.html"/>
  <AppDomains>
    <AppDomain>{url}</AppDomain>
  </AppDomains>
  <Hosts>
    <Host Name="Workbook"/>
  </Hosts>
  <Requirements>
    <Sets DefaultMinVersion="1.9">
      <Set Name="ExcelApi" MinVersion="1.9"/>
    </Sets>
  </Requirements>
  <DefaultSettings>
    <SourceLocation DefaultValue="{pane}"/>
  </DefaultSettings>
  <Permissions>ReadWriteDocument</Permissions>
  <VersionOverrides xmlns="http://schemas.microsoft.com/office/taskpaneappversionoverrides" xsi:type="VersionOverridesV1_0">
    <Hosts>
      <Host xsi:type="Workbook">
        <DesktopFormFactor>
          <ExtensionPoint xsi:type="PrimaryCommandSurface">
            <OfficeTab id="TabHome">
              <Group id="FortapGroup">
                <Label resid="Fortap.Label"/>
                <Icon>
                  <bt:Image size="16" resid="Icon.16"/>
                  <bt:Image size="32" resid="Icon.32"/>
                  <bt:Image size="80" resid="Icon.80"/>
                </Icon>
                <Control xsi:type="Button" id="FortapOpen">
                  <Label resid="Fortap.Label"/>
                  <Supertip>
                    <Title resid="Fortap.Label"/>
                    <Description resid="Fortap.Tip"/>
                  </Supertip>
                  <Icon>
                    <bt:Image size="16" resid="Icon.16"/>
                    <bt:Image size="32" resid="Icon.32"/>
                    <bt:Image size="80" resid="Icon.80"/>
                  </Icon>
                  <Action xsi:type="ShowTaskpane">
                    <TaskpaneId>FortapPane</TaskpaneId>
                    <SourceLocation resid="Pane.Url"/>
                  </Action>
                </Control>
              </Group>
            </OfficeTab>
          </ExtensionPoint>
        </DesktopFormFactor>
      </Host>
    </Hosts>
    <Resources>
      <bt:Images>
        <bt:Image id="Icon.16" DefaultValue="{icon(16)}"/>
        <bt:Image id="Icon.32" DefaultValue="{icon(32)}"/>
        <bt:Image id="Icon.80" DefaultValue="{icon(80)}"/>
      </bt:Images>
      <bt:Urls>
        <bt:Url id="Pane.Url" DefaultValue="{pane}"/>
      </bt:Urls>
      <bt:ShortStrings>
        <bt:String id="Fortap.Label" DefaultValue="fortap"/>
      </bt:ShortStrings>
      <bt:LongStrings>
        <bt:String id="Fortap.Tip" DefaultValue="{escape(SHORT)}"/>
      </bt:LongStrings>
    </Resources>
  </VersionOverrides>
</OfficeApp>
"""


def manifest_text(port: int, form: str) -> str:
    """`form` "json" (unified) or "xml" (classic)."""
    if form == "json":
        return json.dumps(unified_manifest(port), indent=2) + "\n"
    if form == "xml":
        return xml_manifest(port)
    raise ValueError(f"manifest form must be json or xml, got {form!r}")
